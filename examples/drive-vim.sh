#!/usr/bin/env bash
# Drives vim from bash through a running "ptywright serve": starts a server
# on a socket of its own, opens a file in vim, types a line, saves it, checks
# the file, shows how a script branches on the exit codes (0 done, 1 timed
# out or no match, 2 error), quits vim and closes the session.
#
# Needs ptywright and vim on PATH. Run it from anywhere:
#
#	bash examples/drive-vim.sh
set -euo pipefail

command -v vim >/dev/null || { echo "drive-vim: vim is not installed" >&2; exit 2; }

dir=$(mktemp -d)
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"

# Every ptywright command below talks to this socket.
export PTYWRIGHT_SOCKET="$dir/serve.sock"
ptywright serve 2>"$dir/serve.log" &
server=$!
until ptywright list >/dev/null 2>&1; do # until the server listens
	kill -0 "$server" 2>/dev/null || { cat "$dir/serve.log" >&2; exit 2; }
	sleep 0.05
done

# start prints the session's id; the program runs in this directory.
id=$(ptywright start --rows 24 --cols 80 -- vim -u NONE -N -n notes.txt)
echo "started vim as $id"
ptywright wait "$id" --text '"notes.txt" [New]' --timeout 10s >/dev/null

# send prints the screen's sequence as the input began: wait --after sees
# only the screens that followed it.
seq=$(ptywright send "$id" --text 'iHello from bash' --key escape --text ':w' --key enter)
written=$(ptywright wait "$id" --regex '"notes\.txt".* written' --after "$seq" --timeout 10s)
echo "vim says: $written"
[ "$(cat notes.txt)" = "Hello from bash" ] || { echo "notes.txt holds: $(cat notes.txt)" >&2; exit 1; }
echo "notes.txt holds: $(cat notes.txt)"

# A text that never shows: exit 1 once the timeout passes (the last
# screen goes to stderr).
rc=0
ptywright wait "$id" --text 'no such text' --timeout 200ms 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || { echo "a wait that timed out exited $rc, not 1" >&2; exit 1; }
echo "a wait that timed out exited 1"

# An unknown session is an error: exit 2, with the reason on stderr.
rc=0
ptywright send s999 --text x 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || { echo "a send to an unknown session exited $rc, not 2" >&2; exit 1; }
echo "a send to an unknown session exited 2"

# The screen, as text.
ptywright snapshot "$id" | tail -n 1

ptywright send "$id" --text ':q' --key enter >/dev/null
echo "vim: $(ptywright wait "$id" --exited --timeout 10s)"
ptywright close "$id"
echo "all checks passed"
