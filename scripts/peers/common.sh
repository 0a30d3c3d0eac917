# Helpers the peer scripts source (not a command): Debian installs, the
# target/peers/bin links `strata lab` looks in, and a --check exchange.
# Expects ROOT (the checkout) and die().

# apt_install PACKAGE...: installs Debian packages (sudo when not root).
apt_install() {
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "installing $* with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >&2 ||
        { "${sudo[@]}" apt-get update -qq >&2 &&
            "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >&2; } ||
        die "apt-get install $* failed"
}

# link_peer BINARY NAME: links BINARY as target/peers/bin/NAME.
link_peer() {
    mkdir -p "$ROOT/target/peers/bin"
    ln -sf "$1" "$ROOT/target/peers/bin/$2"
}

# free_port: a free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT: waits up to 10 s until PORT accepts connections.
wait_port() {
    python3 - "$1" <<'EOF'
import socket, sys, time
deadline = time.time() + 10
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
EOF
}

# text_exchange PORT REQUEST MARKER: sends REQUEST, prints the reply read
# until a complete line starts with MARKER (or 5 s passed).
text_exchange() {
    python3 - "$1" "$2" "$3" <<'EOF'
import socket, sys, time
port, request, marker = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(request.encode())
reply = b""
deadline = time.time() + 5
def done():
    return any(l.startswith(marker.encode()) for l in reply.split(b"\r\n")[:-1])
while time.time() < deadline and not done():
    try:
        chunk = s.recv(65536)
    except socket.timeout:
        break
    if not chunk:
        break
    reply += chunk
print(reply.decode(errors="replace").replace("\r", ""))
EOF
}
