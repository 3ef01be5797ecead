#!/usr/bin/env bash
# Fuzzes the API with schemathesis against its own OpenAPI document, anonymously and with a user's
# bearer token, and fails on any 5xx (check not_a_server_error). A developer's tool, not part of
# `make test`: schemathesis goes into a throwaway venv under /tmp (never worker/.venv or the product's
# requirements), the server runs on a fresh DATA_DIR (embedded database) on 127.0.0.1.
#   tests/bench/fuzz-api.sh [max examples per operation, default 20]
set -euo pipefail
cd "$(dirname "$0")/../.."

EXAMPLES=${1:-20}
VENV=${FUZZ_VENV:-/tmp/qml-fuzz-venv}
PORT=${FUZZ_PORT:-18089}
BASE="http://127.0.0.1:$PORT"
if [ ! -x "$VENV/bin/st" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q 'schemathesis>=4,<5'
fi

DATA=$(mktemp -d /tmp/qml-fuzz-data.XXXXXX)
ADMIN_EMAIL=fuzz-admin@example.com ADMIN_PASSWORD='fuzz admin password 1' DATA_DIR="$DATA" \
  HOST=127.0.0.1 PORT="$PORT" LOG_LEVEL=warn setsid npx tsx server/main.ts >"$DATA/server.log" 2>&1 &
SERVER=$!
# The server runs in a process group of its own (npx, tsx, node): end all of it.
trap 'kill -- -"$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true; rm -rf "$DATA"' EXIT
if curl -sf "$BASE/api/health/live" >/dev/null; then echo "port $PORT is taken; set FUZZ_PORT"; exit 1; fi
for _ in $(seq 120); do curl -sf "$BASE/api/health/live" >/dev/null && break; sleep 1; done
curl -sf "$BASE/api/health/live" >/dev/null || { echo 'the server did not start:'; tail -20 "$DATA/server.log"; exit 1; }

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
login() { curl -sf "$BASE/api/login" -d grant_type=password --data-urlencode "username=$1" --data-urlencode "password=$2" | json '["access_token"]'; }
ADMIN=$(login fuzz-admin@example.com 'fuzz admin password 1')
ID=$(curl -sf "$BASE/api/users" -H 'content-type: application/json' \
  -d '{"name":"fuzz_user","email":"fuzz-user@example.com","password":"fuzz-user-pw-1"}' | json '["data"]["id"]')
for action in verify-email approve; do
  curl -sf -X POST "$BASE/api/admin/users/$ID/$action" -H "authorization: Bearer $ADMIN" >/dev/null
done
USER_TOKEN=$(login fuzz-user@example.com fuzz-user-pw-1)

status=0
for who in anonymous user; do
  headers=()
  # The user run leaves out sign-out: it would end the token's session and turn the rest into 401s.
  [ "$who" = user ] && headers=(--header "Authorization: Bearer $USER_TOKEN" --exclude-path /api/logout)
  echo "== schemathesis, $who, $EXAMPLES examples per operation"
  "$VENV/bin/st" run "$BASE/api/openapi.json" --url "$BASE" --checks not_a_server_error \
    --max-examples "$EXAMPLES" --workers 1 "${headers[@]}" || status=1
done
# The error handler logs every 5xx it answers as 'request failed' (at error level).
echo "server errors logged: $(grep -c '"request failed"' "$DATA/server.log" || true)"
exit $status
