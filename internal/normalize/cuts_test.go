package normalize

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nonceContext is a live context laid out like the harness's: the root
// /tmp/acpsnap-<nonce> with the cwd and the home in it, the cwd and the
// root with their "/private" spellings.
func nonceContext(nonce string) func() *Context {
	return func() *Context {
		root := "/tmp/acpsnap-" + nonce
		c := NewContext(root+"/workspace", "/private"+root+"/workspace")
		c.AddPath("home", root+"/home")
		c.AddPath("root", root, "/private"+root)
		c.AddNonce(nonce, root+"/tmp")
		return c
	}
}

func TestNonceCuts(t *testing.T) {
	for _, tc := range []textCase{
		{name: "whole path is a token", in: "/tmp/acpsnap-0004211-k2m9q4xa/workspace/a", want: "{{cwd}}/a"},
		{name: "tail cut after an ellipsis", in: "...tmp/acpsnap-0004211-k2m9q4xa/workspace/notes.txt", want: "...tmp/acpsnap-0000000-00000000/workspace/notes.txt"},
		{name: "tail cut inside the nonce", in: "…211-k2m9q4xa/workspace/notes.txt", want: "…000-00000000/workspace/notes.txt"},
		{name: "tail cut keeping one byte of the nonce", in: "…a/workspace/notes.txt", want: "…0/workspace/notes.txt"},
		{name: "tail cut of the home", in: "(xa/home/.config)", want: "(00/home/.config)"},
		{name: "tail cut at the start", in: "9q4xa/workspace", want: "00000/workspace"},
		{name: "tail cut of the private spelling", in: "...vate/tmp/acpsnap-0004211-k2m9q4xa/workspace/x", want: "...vate{{cwd}}/x"},
		{name: "tail cut of the root, five bytes", in: "…9q4xa/sessions/x", want: "…00000/sessions/x"},
		{name: "tail cut of the root, four bytes, is too short to tell", in: "…q4xa/sessions/x", want: "…q4xa/sessions/x"},
		{name: "tail cut of another folder", in: "…a/tmp/x", want: "…0/tmp/x"},
		{name: "tail glued to a word", in: "zzxa/workspace", want: "zzxa/workspace"},
		{name: "tail that goes on is another path", in: "…xa/workspace2", want: "…xa/workspace2"},
		{name: "head cut", in: "/tmp/acpsnap-0004211-k2…", want: "/tmp/acpsnap-0000000-00…"},
		{name: "head cut past the nonce", in: "/tmp/acpsnap-0004211-k2m9q4xa/wor...", want: "{{root}}/wor..."},
		{name: "head cut relative to /", in: "see tmp/acpsnap-00042...", want: "see tmp/acpsnap-00000..."},
		{name: "head that goes on is another name", in: "/tmp/acpsnap-0004211-k2zz", want: "/tmp/acpsnap-0004211-k2zz"},
		{name: "the nonce alone", in: "run acpsnap-0004211-k2m9q4xa done", want: "run acpsnap-0000000-00000000 done"},
		{name: "another run's nonce stays", in: "…9999-zzzzzzzz/workspace/x /tmp/acpsnap-0009999-zz…", want: "…9999-zzzzzzzz/workspace/x /tmp/acpsnap-0009999-zz…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, normWith(t, nonceContext("0004211-k2m9q4xa"), tc.in)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestNonceCutsEveryWidth: two runs (two nonces) of an agent that cuts a
// path to any width, keeping its tail after "…" or its head before "…",
// normalize to the same text, for paths in the cwd, the home and TMPDIR,
// and elsewhere in the root where the cut keeps at least 5 bytes of the
// nonce.
func TestNonceCutsEveryWidth(t *testing.T) {
	a, b := "0004211-k2m9q4xa", "3870012-p0x7ab1c"
	for _, rest := range []string{"/workspace/notes.txt", "/workspace", "/home/.config/x.json", "/home", "/tmp/t1", "/sessions/s", ""} {
		pa, pb := "/tmp/acpsnap-"+a+rest, "/tmp/acpsnap-"+b+rest
		tooShort := rest == "" || strings.HasPrefix(rest, "/sessions")
		for w := 1; w < len(pa); w++ {
			for _, cut := range [][2]string{{"…" + pa[len(pa)-w:], "…" + pb[len(pb)-w:]}, {pa[:w] + "…", pb[:w] + "…"}} {
				tail := strings.HasPrefix(cut[0], "…")
				if tail && tooShort && w-len(rest) > 0 && w-len(rest) < minCut {
					continue // a cut of the root alone keeps too little of the nonce to tell it from text
				}
				na, nb := normWith(t, nonceContext(a), cut[0]), normWith(t, nonceContext(b), cut[1])
				if na != nb {
					t.Errorf("width %d: %q and %q normalize to %q and %q", w, cut[0], cut[1], na, nb)
				}
			}
		}
	}
}

func TestAddNoncePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"short": func() { NewContext("/x").AddNonce("1234") },
		"late": func() {
			c := nonceContext("0004211-k2m9q4xa")()
			normWith(t, func() *Context { return c }, "x")
			c.AddNonce("0004211-k2m9q4xa")
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// FuzzNonceCuts: whatever text holds the nonce ("@" in the input stands
// for it) and pieces of the run's paths, the nonce never survives whole,
// and normalizing is idempotent.
func FuzzNonceCuts(f *testing.F) {
	for _, s := range []string{"…@/workspace/notes.txt", "/tmp/acpsnap-@", "/tmp/acpsnap-00042…", "…xa/home", "@@", "tmp/acpsnap-@/x…", "a@b/workspace"} {
		f.Add(s)
	}
	const nonce = "0004211-k2m9q4xa"
	f.Fuzz(func(t *testing.T, in string) {
		s := strings.ReplaceAll(in, "@", nonce)
		line, err := Marshal(map[string]string{"v": s})
		if err != nil {
			return
		}
		out, err := Stdout(line, nonceContext(nonce)())
		if err != nil {
			t.Fatalf("Stdout(%s): %v", line, err)
		}
		if strings.Contains(string(out), nonce) {
			t.Errorf("%s: the nonce survives in %s", line, out)
		}
		again, err := Stdout(out, nonceContext(nonce)())
		if err != nil || string(again) != string(out) {
			t.Errorf("not idempotent: %s became %s (%v)", out, again, err)
		}
	})
}

// TestNonceCutsRandom: two runs of an agent that cuts its paths to every
// width, with random nonces, in a root whose temporary folder's own name
// ends like a nonce may ("…/script-run/tmp/acpsnap-…": TMPDIR's "n/tmp"
// is also a tail of the temporary folder), normalize to the same text.
func TestNonceCutsRandom(t *testing.T) {
	pre := "/dev/shm/w/script-run/tmp/acpsnap-"
	ctx := func(nonce string) func() *Context {
		return func() *Context {
			root := pre + nonce
			c := NewContext(root + "/workspace")
			c.AddPath("home", root+"/home")
			c.AddPath("root", root)
			c.AddNonce(nonce, root+"/tmp", root+"/sessions")
			return c
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	nonce := func() string {
		const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
		b := []byte(fmt.Sprintf("%07d-", rng.IntN(4194304)))
		for range 8 {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		return string(b)
	}
	for range 8 {
		a, b := nonce(), nonce()
		b = b[:len(b)-1] + "n" // the last byte of "run"
		for _, rest := range []string{"/workspace/notes.txt", "/tmp/scratch.txt", "/home/.config/agent.json"} {
			pa, pb := pre+a+rest, pre+b+rest
			for w := 1; w < len(pa); w++ {
				for _, cut := range [][2]string{{"..." + pa[len(pa)-w:], "..." + pb[len(pb)-w:]}, {pa[:w] + "...", pb[:w] + "..."}} {
					if na, nb := normWith(t, ctx(a), cut[0]), normWith(t, ctx(b), cut[1]); na != nb {
						t.Fatalf("nonces %s and %s: %q and %q normalize to %q and %q", a, b, cut[0], cut[1], na, nb)
					}
				}
			}
		}
	}
}
