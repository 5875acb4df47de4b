package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

// maxToolOutput caps the text a tool returns to the model.
const maxToolOutput = 256 << 10

var readFileTool = &tool{
	spec: model.ToolSpec{
		Name:        toolReadFile,
		Description: "Read a text file. Paths are relative to the working directory. offset is the 1-based line to start at, limit the number of lines.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"file path, relative to the working directory"},` +
			`"offset":{"type":"integer","minimum":1,"description":"1-based line to start reading at"},` +
			`"limit":{"type":"integer","minimum":1,"description":"maximum number of lines to read"}},` +
			`"required":["path"],"additionalProperties":false}`),
	},
	kind:  acp.ToolKindRead,
	title: titled("Read", "path", "Read file"),
	run:   readFile,
}

var writeFileTool = &tool{
	spec: model.ToolSpec{
		Name:        toolWriteFile,
		Description: "Create or overwrite a text file with the given content. Parent directories are created.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"file path, relative to the working directory"},` +
			`"content":{"type":"string","description":"the complete new content of the file"}},` +
			`"required":["path","content"],"additionalProperties":false}`),
	},
	kind:  acp.ToolKindEdit,
	asks:  true,
	title: titled("Write", "path", "Write file"),
	run:   writeFile,
}

var editFileTool = &tool{
	spec: model.ToolSpec{
		Name:        toolEditFile,
		Description: "Replace old_string with new_string in a text file. old_string must occur exactly once unless replace_all is true.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"file path, relative to the working directory"},` +
			`"old_string":{"type":"string","description":"the exact text to replace"},` +
			`"new_string":{"type":"string","description":"the replacement text"},` +
			`"replace_all":{"type":"boolean","description":"replace every occurrence instead of exactly one"}},` +
			`"required":["path","old_string","new_string"],"additionalProperties":false}`),
	},
	kind:  acp.ToolKindEdit,
	asks:  true,
	title: titled("Edit", "path", "Edit file"),
	run:   editFile,
}

var listDirTool = &tool{
	spec: model.ToolSpec{
		Name:        toolListDir,
		Description: "List a directory, sorted by name; directories end with a slash. path defaults to the working directory.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"directory path, relative to the working directory (default: the working directory)"}},` +
			`"additionalProperties":false}`),
	},
	kind:  acp.ToolKindRead,
	title: titled("List", "path", "List ."),
	run:   listDir,
}

func readFile(t *turn, c model.ToolCall) (string, error) {
	var a struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return "", err
	}
	if a.Offset < 0 || a.Limit < 0 {
		return "", errors.New("offset and limit must be positive")
	}
	abs, err := t.s.resolve(a.Path)
	if err != nil {
		return "", err
	}
	text, err := t.readText(abs, a.Offset, a.Limit)
	if err != nil {
		return "", err
	}
	return truncate(text), nil
}

// lines returns limit lines of text from the 1-based line offset (0: from
// the start, all lines).
func lines(text string, offset, limit int) (string, error) {
	if offset <= 1 && limit == 0 {
		return text, nil
	}
	all := strings.SplitAfter(text, "\n")
	if all[len(all)-1] == "" {
		all = all[:len(all)-1]
	}
	start := max(offset, 1) - 1
	if start >= len(all) && start > 0 {
		return "", fmt.Errorf("offset %d is past the end of the file (%d lines)", offset, len(all))
	}
	end := len(all)
	if limit > 0 {
		end = min(start+limit, end)
	}
	return strings.Join(all[start:end], ""), nil
}

// truncate caps s at maxToolOutput bytes (see truncateOf).
func truncate(s string) string { return truncateOf(s, len(s)) }

// truncateOf caps s, the first bytes of a text of total bytes, at
// maxToolOutput bytes, cut on a UTF-8 character boundary, and notes how
// many bytes of the text were left out.
func truncateOf(s string, total int) string {
	if total <= maxToolOutput && len(s) == total {
		return s
	}
	n := min(maxToolOutput, len(s))
	for i := 0; i < utf8.UTFMax-1 && n > 0 && n < len(s) && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[truncated: %d more bytes]", total-n)
}

func writeFile(t *turn, c model.ToolCall) (string, error) {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return "", err
	}
	if a.Content == nil {
		return "", errors.New("content is required")
	}
	abs, err := t.s.resolve(a.Path)
	if err != nil {
		return "", err
	}
	if err := t.writeText(abs, *a.Content); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(*a.Content), t.s.display(abs)), nil
}

func editFile(t *turn, c model.ToolCall) (string, error) {
	var a struct {
		Path       string `json:"path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return "", err
	}
	abs, err := t.s.resolve(a.Path)
	if err != nil {
		return "", err
	}
	name := t.s.display(abs)
	if a.OldString == "" {
		return "", errors.New("old_string must not be empty")
	}
	if a.OldString == a.NewString {
		return "", errors.New("old_string and new_string are identical")
	}
	old, err := t.readText(abs, 0, 0)
	if err != nil {
		return "", err
	}
	n := strings.Count(old, a.OldString)
	switch {
	case n == 0:
		return "", fmt.Errorf("old_string not found in %s", name)
	case n > 1 && !a.ReplaceAll:
		return "", fmt.Errorf("old_string occurs %d times in %s; pass replace_all or a longer old_string", n, name)
	}
	if err := t.writeText(abs, strings.ReplaceAll(old, a.OldString, a.NewString)); err != nil {
		return "", err
	}
	return fmt.Sprintf("edited %s: replaced %d occurrence(s)", name, n), nil
}

// readText reads limit lines from the 1-based line offset of a file (0, 0:
// all of it), through the client when it offers fs/read_text_file.
func (t *turn) readText(abs string, offset, limit int) (string, error) {
	if read, _ := t.clientFS(); read {
		req := acp.ReadTextFileRequest{SessionId: acp.SessionId(t.s.id), Path: abs}
		if offset > 0 {
			req.Line = acp.Ptr(offset)
		}
		if limit > 0 {
			req.Limit = acp.Ptr(limit)
		}
		resp, err := t.s.srv.conn.ReadTextFile(t.ctx, req)
		if err != nil {
			return "", fmt.Errorf("read %s: %v", t.s.display(abs), err)
		}
		return resp.Content, nil
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return "", fmt.Errorf("read %s: %v", t.s.display(abs), osReason(err))
	}
	text, err := lines(string(b), offset, limit)
	if err != nil {
		return "", fmt.Errorf("read %s: %v", t.s.display(abs), err)
	}
	return text, nil
}

// osReason strips the operation and path from an os error: tool errors
// name the cwd-relative path themselves.
func osReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeText writes a whole file, through the client when it offers
// fs/write_text_file, else locally (creating parent directories).
func (t *turn) writeText(abs, content string) error {
	if _, write := t.clientFS(); write {
		_, err := t.s.srv.conn.WriteTextFile(t.ctx, acp.WriteTextFileRequest{SessionId: acp.SessionId(t.s.id), Path: abs, Content: content})
		if err != nil {
			return fmt.Errorf("write %s: %v", t.s.display(abs), err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("write %s: %v", t.s.display(abs), osReason(err))
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		return fmt.Errorf("write %s: %v", t.s.display(abs), osReason(err))
	}
	return nil
}

func listDir(t *turn, c model.ToolCall) (string, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		a.Path = "."
	}
	abs, err := t.s.resolve(a.Path)
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", fmt.Errorf("list %s: %v", t.s.display(abs), osReason(err))
	}
	if len(entries) == 0 {
		return "(empty directory)", nil
	}
	var b strings.Builder
	for _, e := range entries { // os.ReadDir sorts by name
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return truncate(b.String()), nil
}
