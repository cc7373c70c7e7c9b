#!/usr/bin/env python3
"""A whole game of Truco against a bot, through the `truco` SSH subsystem, with nothing but
the OpenSSH client and msgpack (the protocol is in docs/PROTOCOL.md):

    python3 docs/ssh_player.py ssh -s -p 2222 ana@localhost truco

It creates a two-player Argentine table to 15 points, puts a bot in the other seat and plays
from what each table update says: a card when it is its turn, "quiero" to any bet. Frames are
a 4-byte big-endian length and a msgpack map {"v": VERSION, "t": <type>, ...fields}.
"""
import struct
import subprocess
import sys
import time

import msgpack

VERSION = 2  # the protocol version this script speaks (docs/PROTOCOL.md)
PREFERENCE = ("play", "quiero", "declare_envido", "son_buenas")  # then whatever is legal


def send(pipe, t, **fields):
    data = msgpack.packb({"v": VERSION, "t": t, **fields})
    pipe.write(struct.pack(">I", len(data)) + data)
    pipe.flush()


def receive(pipe):
    head = pipe.read(4)
    if len(head) < 4:
        return None  # the server hung up
    return msgpack.unpackb(pipe.read(struct.unpack(">I", head)[0]))


def choose(legal):
    for call in PREFERENCE:
        for action in legal:
            if action["call"] == call:
                return action
    return legal[0]


def main(ssh_command):
    name = next(arg for arg in ssh_command if "@" in arg).split("@")[0]
    ssh = subprocess.Popen(ssh_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out, into = ssh.stdout, ssh.stdin
    send(into, "claim_name", name=name)
    # Command ids: a repeat is ignored, also one from an earlier connection of the same seat.
    cid, acted = int(time.time() * 1000), None
    while (msg := receive(out)) is not None:
        kind = msg["t"]
        if kind == "welcome":
            print(f"welcome, {msg['name']}")
            send(into, "create_table", variant="argentino", players=2, options={"target": 15})
        elif kind == "table_created":
            send(into, "add_bot", table_id=msg["table_id"])
        elif kind == "error":
            print(f"error {msg['code']}: {msg['message']}")
        elif kind == "table_update" and msg.get("seat") is not None:
            # A field at its default value may be left out of a message: read them with .get.
            view, seat = msg["view"], msg["seat"]
            if view.get("match_over", False):
                mine = view.get("teams", [0, 1])[seat]
                scores = view.get("scores", [0, 0])
                print(f"match over: {scores[mine]} to {scores[1 - mine]},",
                      "won" if view.get("winner") == mine else "lost")
                send(into, "leave_table", table_id=msg["table_id"])
                break
            legal = view.get("legal", [])
            if seat in msg.get("waiting", []) and legal and acted != msg["seq"]:
                action = choose(legal)
                cid, acted = cid + 1, msg["seq"]
                send(into, "act", table_id=msg["table_id"], call=action["call"],
                     card=action.get("card"), amount=action.get("amount"), cid=cid)
    into.close()
    return ssh.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
