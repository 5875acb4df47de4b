#!/usr/bin/env python3
"""A tiny ACP agent that talks to its model over HTTP and knows nothing of acpsnap.

JSON-RPC lines on stdio; every prompt is one streamed OpenAI chat
completions call to CHAT_BASE_URL (with the session's history), whose
deltas go to the client as message chunks. A tool call of the model
(read_file, its path absolute or relative to the session's cwd) is reported
under the model's own tool-call id and its result sent back to the model; an
HTTP error's body is shown to the client verbatim and ends the turn;
session/cancel stops the stream and the prompt ends "cancelled", and what
the agent has not shown by then it drops. CHAT_SLOW_TEXT_MS makes it wait
that long before it shows a turn's first text, as on a loaded machine.
acpsnap's
proxy stands between the agent and the model, records the traffic and
composes the session log.
"""
import json, os, socket, sys, threading, time, urllib.error, urllib.request, uuid

DECORATION = ""  # appended to every message chunk sent to the client
URL, KEY = os.environ["CHAT_BASE_URL"].rstrip("/"), os.environ.get("CHAT_API_KEY", "")
SLOW_TEXT = int(os.environ.get("CHAT_SLOW_TEXT_MS") or 0) / 1000


TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Reads a file.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
out_lock = threading.Lock()


def send(msg):
    with out_lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


def update(sid, upd):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": upd}})


class Turn:
    """One prompt in flight: its stream, which session/cancel shuts."""

    def __init__(self, rid):
        self.rid, self.cancelled, self.done, self.resp = rid, False, False, None
        self.lock = threading.Lock()

    def finish(self, stop):
        """Answers the prompt with stop, unless it is answered already."""
        with self.lock:
            if self.done:
                return
            self.done = True
            self.cancelled = self.cancelled or stop == "cancelled"
        send({"jsonrpc": "2.0", "id": self.rid, "result": {"stopReason": stop}})

    def cancel(self):
        self.finish("cancelled")
        if self.resp is not None:
            try:
                self.resp.fp.raw._sock.shutdown(socket.SHUT_RDWR)
            except (AttributeError, OSError):
                pass


def complete(turn, messages):
    """Yields ("text", delta) and, at the end, ("tools", calls) of one streamed chat completion."""
    body = json.dumps({"model": "echo-1", "messages": messages, "stream": True, "tools": TOOLS}).encode()
    req = urllib.request.Request(URL + "/chat/completions", data=body, headers={
        "Content-Type": "application/json", "Authorization": "Bearer " + KEY})
    calls = {}
    with urllib.request.urlopen(req) as resp:
        turn.resp = resp
        for raw in resp:
            if turn.cancelled:
                return
            line = raw.decode().strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices", []):
                    delta = choice.get("delta", {})
                    if delta.get("content"):
                        yield "text", delta["content"]
                    for tc in delta.get("tool_calls") or []:
                        c = calls.setdefault(tc.get("index", 0), {"id": "", "name": "", "arguments": ""})
                        c["id"] += tc.get("id") or ""
                        fn = tc.get("function") or {}
                        c["name"] += fn.get("name") or ""
                        c["arguments"] += fn.get("arguments") or ""
    if calls:
        yield "tools", [calls[i] for i in sorted(calls)]


def read_file(cwd, path):
    full = path if os.path.isabs(path) else os.path.join(cwd, path)
    try:
        with open(full) as f:
            return f.read(), "completed"
    except OSError as e:
        return str(e), "failed"


def prompt(sid, cwd, messages, turn):
    """Runs one prompt to its end: model calls until one answers without a tool call."""
    try:
        while True:
            answer, tools = "", []
            for kind, value in complete(turn, messages):
                if kind == "text":
                    if not answer:
                        time.sleep(SLOW_TEXT)
                    answer += value
                    if not turn.cancelled:
                        update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": value + DECORATION}})
                else:
                    tools = value
            if turn.cancelled:
                return
            msg = {"role": "assistant", "content": answer}
            if tools:
                msg["tool_calls"] = [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in tools]
            messages.append(msg)
            if not tools:
                break
            for c in tools:
                path = json.loads(c["arguments"] or "{}").get("path", "")
                # ACP paths are absolute: the location is the path resolved
                # against the session's cwd, the title as the model wrote it.
                where = path if os.path.isabs(path) else os.path.join(cwd, path)
                update(sid, {"sessionUpdate": "tool_call", "toolCallId": c["id"], "title": "Read " + path,
                             "kind": "read", "status": "pending", "locations": [{"path": where}]})
                text, status = read_file(cwd, path)
                update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": c["id"], "status": status,
                             "content": [{"type": "content", "content": {"type": "text", "text": text}}]})
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": text})
    except urllib.error.HTTPError as e:
        body = e.read().decode()
        update(sid, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": body}})
    except OSError:
        if not turn.cancelled:
            raise
    turn.finish("end_turn")


def main():
    history, cwds, turns = {}, {}, {}
    for line in sys.stdin:
        req = json.loads(line)
        method, params, rid = req.get("method"), req.get("params", {}), req.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
        elif method == "session/new":
            sid = str(uuid.uuid4())
            cwds[sid] = params.get("cwd", os.getcwd())
            history[sid] = [{"role": "system", "content": "You are a terse assistant: answer in one short sentence, in the language of the user, and never ask back."}]
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": sid}})
        elif method == "session/prompt":
            sid = params["sessionId"]
            history[sid].append({"role": "user", "content": "".join(b.get("text", "") for b in params["prompt"])})
            turns[sid] = Turn(rid)
            threading.Thread(target=prompt, args=(sid, cwds[sid], history[sid], turns[sid]), daemon=True).start()
        elif method == "session/cancel":
            if params.get("sessionId") in turns:
                turns[params["sessionId"]].cancel()
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})
    # stdin closed: the client is gone. Exit now, without waiting for a
    # stream a cancel left blocked in its read.
    with out_lock:
        sys.stdout.flush()
    os._exit(0)


main()
