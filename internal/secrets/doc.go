// Package secrets keeps secret values out of what acpsnap writes and
// prints, and out of the environments an agent's tools see.
//
// A Set knows the secrets the harness was given, such as the model
// provider's key, and the values of the key-looking variables of acpsnap's
// own environment (LooksSecret; values of at least MinLen bytes). An agent
// or a terminal can read those: a process of the same user may read
// /proc/<pid>/environ of its parent. So every fixture byte is checked
// before it is written, and every agent byte before it is printed:
//
//	set := secrets.New(cfg.Secrets, os.Environ())
//	if err := set.Check("snapshots/x/session.jsonl", b); err != nil {
//		// "snapshots/x/session.jsonl:17: holds the value of DEEPSEEK_API_KEY; nothing is written or shown …"
//	}
//	fmt.Println(set.Redact(stderrTail)) // the value becomes [DEEPSEEK_API_KEY]
//
// A hit names the place and the variable, never the value. A value is
// found in the disguises a hostile upstream or agent may give it too:
// reversed, hex, base64 (inside a longer encoded text too), percent- or
// \u-escaped (docs/format.md, "Secrets").
//
// Scrub removes from an environment what no process an agent runs for a
// model may see: acpsnap's own ACPSNAP_* variables, which hold machine
// paths, the variables a caller names, and those under the prefixes a
// caller gives, such as the reference agent's DEEPSEEK_*. A command such
// as env would otherwise print a key into a recorded fixture:
//
//	env := secrets.Scrub(os.Environ(), []string{"DEEPSEEK_"}, "OPENAI_API_KEY")
package secrets
