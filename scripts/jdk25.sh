# Sourced by the other scripts: exports JAVA_HOME pointing at a JDK 25 or newer.
# Order: $JAVA_HOME if it is 25+, then /usr/lib/jvm/*25*/, then `java` on PATH if it is 25+.
_unicomm_java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
_unicomm_pick_jdk() {
  local c
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*-25* /usr/lib/jvm/*25*; do
    [ -n "$c" ] && [ -x "$c/bin/javac" ] || continue
    local v; v=$(_unicomm_java_major "$c")
    if [ -n "$v" ] && [ "$v" -ge 25 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  if command -v javac >/dev/null 2>&1; then
    c=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    local v; v=$(_unicomm_java_major "$c")
    if [ -n "$v" ] && [ "$v" -ge 25 ] 2>/dev/null; then echo "$c"; return 0; fi
  fi
  return 1
}
if ! JAVA_HOME=$(_unicomm_pick_jdk); then
  echo "unicomm needs JDK 25 or newer: set JAVA_HOME to one (none found in JAVA_HOME, /usr/lib/jvm or PATH)" >&2
  exit 1
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
