// Package llmreplay is the model stand-in of acpsnap (SPEC §6): it derives a
// replay script from recorded session logs, applies authored overrides, and
// serves the script either in-process (Player) or over HTTP in the OpenAI
// chat-completions streaming dialect (Server).
package llmreplay
