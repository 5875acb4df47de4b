package secrets

import (
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	s := New(map[string]string{"DEEPSEEK_API_KEY": "sk-live-0123456789", "DEEPSEEK_MODEL": "deepseek-chat"},
		[]string{"GITHUB_TOKEN=ghp_abcdefghijkl", "HOME=/root/home-folder", "SHORT_KEY=abc", "AWS_SECRET=wJalrXUtnFEMI", "PATH=/usr/bin:/bin"})
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want 3 (short values and non-key names left out)", s.Len())
	}
	log := "{\"type\":\"session\"}\n{\"out\":\"DEEPSEEK_API_KEY=sk-live-0123456789\\nHOME=/root/home-folder\"}\n"
	err := s.Check("snapshots/x/session.jsonl", []byte(log))
	if err == nil {
		t.Fatal("Check found nothing")
	}
	want := "secrets: snapshots/x/session.jsonl:2: holds the value of DEEPSEEK_API_KEY; nothing is written or shown"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Check = %q, want prefix %q", err, want)
	}
	if strings.Contains(err.Error(), "sk-live") {
		t.Errorf("the error shows the value: %v", err)
	}
	if err := s.Check("f", []byte("HOME=/root/home-folder abc")); err != nil {
		t.Errorf("Check of clean bytes: %v", err)
	}
	got := s.Redact("token ghp_abcdefghijkl and wJalrXUtnFEMI")
	if got != "token [GITHUB_TOKEN] and [AWS_SECRET]" {
		t.Errorf("Redact = %q", got)
	}
	if h, ok := s.Find([]byte("a\nb\nxx wJalrXUtnFEMI sk-live-0123456789")); !ok || h != (Hit{3, "AWS_SECRET"}) {
		t.Errorf("Find = %+v %v, want line 3 AWS_SECRET (the first by position)", h, ok)
	}
}

func TestLooksSecret(t *testing.T) {
	for name, want := range map[string]bool{"DEEPSEEK_API_KEY": true, "OPENAI_API_KEY": true, "GH_TOKEN": true, "token": true,
		"MY_SECRET": true, "DB_PASSWORD": true, "PATH": false, "KEYBOARD": false, "HOME": false, "LANG": false} {
		if got := LooksSecret(name); got != want {
			t.Errorf("LooksSecret(%q) = %v, want %v", name, got, want)
		}
	}
}
