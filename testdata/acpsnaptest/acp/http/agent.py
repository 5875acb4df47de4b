#!/usr/bin/env python3
"""A tiny ACP agent that talks to its model over HTTP and knows nothing of acpsnap.

JSON-RPC lines on stdio; every prompt is one streamed OpenAI chat
completions call to CHAT_BASE_URL (with the session's history), whose
deltas go to the client as message chunks. acpsnap's proxy stands between
the agent and the model, records the traffic and composes the session log.
"""
import json, os, sys, urllib.request, uuid

DECORATION = ""  # appended to every message chunk sent to the client
URL, KEY = os.environ["CHAT_BASE_URL"].rstrip("/"), os.environ.get("CHAT_API_KEY", "")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def complete(messages):
    """Yields the content deltas of one streamed chat completion."""
    body = json.dumps({"model": "echo-1", "messages": messages, "stream": True}).encode()
    req = urllib.request.Request(URL + "/chat/completions", data=body, headers={
        "Content-Type": "application/json", "Authorization": "Bearer " + KEY})
    with urllib.request.urlopen(req) as resp:
        for raw in resp:
            line = raw.decode().strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices", []):
                    if choice.get("delta", {}).get("content"):
                        yield choice["delta"]["content"]


def main():
    history = {}
    for line in sys.stdin:
        req = json.loads(line)
        method, params, rid = req.get("method"), req.get("params", {}), req.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
        elif method == "session/new":
            sid = str(uuid.uuid4())
            history[sid] = [{"role": "system", "content": "You are a terse assistant: answer in one short sentence, in the language of the user, and never ask back."}]
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": sid}})
        elif method == "session/prompt":
            sid = params["sessionId"]
            history[sid].append({"role": "user", "content": "".join(b.get("text", "") for b in params["prompt"])})
            answer = ""
            for delta in complete(history[sid]):
                answer += delta
                send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
                    "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": delta + DECORATION}}}})
            history[sid].append({"role": "assistant", "content": answer})
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})


main()
