# Sourced by the docs test before the docs' commands: curl fails on an HTTP error, unless the
# block shows one on purpose (EXPECT_FAILURE), and then it must get one.
curl() {
  # A command that writes its own output format or file is run as it is.
  case " $* " in *" -w "* | *" --write-out "* | *" -o "* | *" --output "*) command curl "$@"; return $? ;; esac
  local out code body
  out=$(command curl --silent --show-error --write-out '\n%{http_code}' "$@") || return $?
  code=${out##*$'\n'}
  body=${out%$'\n'*}
  printf '%s\n' "$body"
  if [ "$code" -ge 400 ] && [ -z "${EXPECT_FAILURE:-}" ]; then echo "curl: HTTP $code" >&2; return 22; fi
  if [ "$code" -lt 400 ] && [ -n "${EXPECT_FAILURE:-}" ]; then echo "curl: expected an HTTP error, got $code" >&2; return 23; fi
  return 0
}
