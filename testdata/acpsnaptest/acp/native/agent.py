#!/usr/bin/env python3
"""A tiny native ACP agent: JSON-RPC lines on stdio, acpsnap's session log.

Its "model" echoes the prompt. In record mode it asks that model; in
replay mode (ACPSNAP_MODE=replay) it serves the assistant/chunk events of
ACPSNAP_FIXTURE instead, one model call at a time, and writes
replay-report.json at exit (docs/agents.md).
"""
import json, os, sys, time, uuid

DECORATION = ""  # appended to every message chunk sent to the client
env = os.environ.get
sessions_dir, mode = env("ACPSNAP_SESSIONS_DIR"), env("ACPSNAP_MODE")


def now():
    return int(time.time() * 1000)


def replay_calls(path):
    """The fixture's model calls: the chunks of each (turn, step), closed at finish."""
    calls, cur = [], []
    for line in open(path):
        ev = json.loads(line)
        if ev.get("type") == "assistant/chunk":
            cur.append(ev["data"]["chunk"])
            if ev["data"]["chunk"]["type"] == "finish":
                calls.append(cur)
                cur = []
    return calls


def echo_model(text):
    return [{"type": "block-start", "index": 0, "blockType": "text"},
            {"type": "text-delta", "index": 0, "text": "You said: "},
            {"type": "text-delta", "index": 0, "text": text},
            {"type": "block-end", "index": 0},
            {"type": "finish", "reason": "stop"}]


class Session:
    def __init__(self, cwd):
        self.id, self.turn, self.seq = str(uuid.uuid4()), 0, 0
        os.makedirs(os.path.join(sessions_dir, self.id))
        self.log = open(os.path.join(sessions_dir, self.id, "session.jsonl"), "w")
        self.write({"type": "session", "version": 1, "id": self.id, "createdAt": now(),
                    "cwd": cwd, "delegationDepth": 0})

    def write(self, obj):
        self.log.write(json.dumps(obj) + "\n")
        self.log.flush()

    def event(self, typ, **data):
        self.write({"type": typ, "seq": self.seq, "time": now(), "data": data})
        self.seq += 1


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main():
    calls = replay_calls(env("ACPSNAP_FIXTURE")) if mode == "replay" else None
    served, sessions = 0, {}
    for line in sys.stdin:
        req = json.loads(line)
        method, params, rid = req.get("method"), req.get("params", {}), req.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
        elif method == "session/new":
            s = Session(params["cwd"])
            sessions[s.id] = s
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": s.id}})
        elif method == "session/prompt":
            s = sessions[params["sessionId"]]
            s.turn += 1
            text = "".join(b.get("text", "") for b in params["prompt"])
            s.event("turn/start", turn=s.turn)
            s.event("request/header", turn=s.turn, step=1, model="echo")
            chunks = calls[served] if calls is not None else echo_model(text)
            served += 1
            for c in chunks:
                s.event("assistant/chunk", turn=s.turn, step=1, chunk=c)
                if c["type"] == "text-delta":
                    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": s.id, "update": {
                        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": c["text"] + DECORATION}}}})
            s.event("turn/end", turn=s.turn, reason={"kind": "completed"})
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})
    if calls is not None:
        report = {"fixtures": [{"fixture": "session.jsonl", "served": served, "left": len(calls) - served}]}
        with open(os.path.join(sessions_dir, "replay-report.json"), "w") as f:
            json.dump(report, f)


main()
