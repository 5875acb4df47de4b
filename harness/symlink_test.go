package harness_test

import "os"

func symlink(target, link string) error { return os.Symlink(target, link) }
