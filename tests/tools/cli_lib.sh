# Shared by the CLI test scripts (source it after setting T, the tracesql binary): a scratch
# directory $W removed on exit, a failure flag $fail, and expect_error.
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
expect_error() {  # expect_error "TEXT" ARGS...: tracesql ARGS fails with TEXT in its output
  local want=$1; shift
  if out=$("$T" "$@" 2>&1); then echo "FAIL: $* succeeded"; fail=1; return; fi
  case "$out" in *"$want"*) ;; *) echo "FAIL: $*: '$out' lacks '$want'"; fail=1 ;; esac
}
