#!/usr/bin/env bash
# build.sh VERSION: builds the client-matrix app for Java kafka-clients VERSION (3.9.x, 4.x) and
# prints ONE line on stdout: the command prefix that runs it (append "<role> --bootstrap ...").
#
#   - jars: `scripts/kafka-reference fetch VERSION` (its exit code 3, unavailable, is passed on);
#     the classpath holds kafka-clients, its compression libraries, slf4j and the logging backend
#     the libs dir has (reload4j until 3.x, log4j2 from 4.0), else the whole libs dir;
#   - classes: MatrixApp.java compiled with `javac --release 17` into
#     $KMOCK_CACHE/matrix/java-VERSION/classes (and packed into matrix-app.jar there, which is
#     what runs: AppCDS wants jars), again only when the source, this script, the jars, the JDK
#     or the JVM options changed (a hash in build.stamp);
#   - logging: a backend config written next to the classes: WARN and above, to stderr;
#   - start-up: C1 only, serial GC, a small heap, and an AppCDS archive (app.jsa) written by a
#     training run of the app's "warmup" role. KMOCK_MATRIX_NO_CDS=1 neither writes nor uses it.
#
# Paths are printed unquoted: the driver splits the line on spaces (KMOCK_CACHE without spaces).
# Exit codes: 0 ok; 1 failure; 3 unavailable (no JDK, or Maven cannot supply VERSION).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
SRC="$HERE/MatrixApp.java"

die() { echo "java/build.sh: $*" >&2; exit 1; }
unavailable() { echo "java/build.sh: unavailable: $*" >&2; exit 3; }

[ $# -eq 1 ] || die "usage: build.sh VERSION (e.g. 3.9.1)"
VERSION="$1"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "bad version \"$VERSION\""

JAVA="${KMOCK_KAFKA_JAVA:-java}"
JAVAC="${KMOCK_MATRIX_JAVAC:-javac}"
command -v "$JAVA" >/dev/null 2>&1 || unavailable "java is not installed"
command -v "$JAVAC" >/dev/null 2>&1 || unavailable "javac is not installed (Debian: openjdk-17-jdk-headless)"

rc=0
LIBS="$("$ROOT/scripts/kafka-reference" fetch "$VERSION")" || rc=$?
[ "$rc" -eq 3 ] && exit 3
[ "$rc" -eq 0 ] || die "scripts/kafka-reference fetch $VERSION failed ($rc)"
[ -f "$LIBS/kafka-clients-$VERSION.jar" ] || die "no kafka-clients-$VERSION.jar in $LIBS"

# The client's runtime jars: kafka-clients, lz4/snappy/zstd, slf4j-api and a backend.
one_jar() { # $1 = glob under LIBS: the single jar it names, or nothing
  local m=()
  shopt -s nullglob
  m=("$LIBS"/$1)
  shopt -u nullglob
  [ "${#m[@]}" -eq 1 ] && echo "${m[0]}"
  return 0
}
BACKEND=""
jars=("$LIBS/kafka-clients-$VERSION.jar")
for g in 'lz4-java-*.jar' 'snappy-java-*.jar' 'zstd-jni-*.jar' 'slf4j-api-*.jar'; do
  j="$(one_jar "$g")"
  [ -n "$j" ] && jars+=("$j") || { jars=(); break; }
done
if [ "${#jars[@]}" -gt 0 ]; then
  a="$(one_jar 'log4j-api-*.jar')" c="$(one_jar 'log4j-core-*.jar')"
  b="$(one_jar 'log4j-slf4j-impl-*.jar')"; [ -n "$b" ] || b="$(one_jar 'log4j-slf4j2-impl-*.jar')"
  r="$(one_jar 'reload4j-*.jar')" rb="$(one_jar 'slf4j-reload4j-*.jar')"
  if [ -n "$a" ] && [ -n "$c" ] && [ -n "$b" ]; then
    BACKEND=log4j2; jars+=("$a" "$c" "$b")
  elif [ -n "$r" ] && [ -n "$rb" ]; then
    BACKEND=reload4j; jars+=("$r" "$rb")
  else
    jars=()
  fi
fi
if [ "${#jars[@]}" -gt 0 ]; then
  LIBCP="$(IFS=:; echo "${jars[*]}")"
else
  # Unknown layout: the whole libs dir (a wildcard, which AppCDS does not like: no archive).
  LIBCP="$LIBS/*"
  if ls "$LIBS"/log4j-core-*.jar >/dev/null 2>&1; then BACKEND=log4j2
  elif ls "$LIBS"/reload4j-*.jar >/dev/null 2>&1; then BACKEND=reload4j; fi
fi

CACHE="${KMOCK_CACHE:-$HOME/.cache/kmock}"
OUT="$CACHE/matrix/java-$VERSION"
CLASSES="$OUT/classes"
APPJAR="$OUT/matrix-app.jar"
JSA="$OUT/app.jsa"
mkdir -p "$OUT"

# JVM options for a fast start of a short-lived client: C1 only, serial GC, small heap, no
# hsperfdata file; JVM warnings to stderr (the default is stdout, which carries the JSON).
JVM=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms32m -Xmx256m -XX:-UsePerfData -Xss512k
     -Xlog:disable -Xlog:all=warning:stderr)
case "$BACKEND" in
  log4j2)   JVM+=("-Dlog4j2.configurationFile=$OUT/log4j2.properties" -Dlog4j2.disableJmx=true -Dlog4j2.shutdownHookEnabled=false) ;;
  reload4j) JVM+=("-Dlog4j.configuration=file:$OUT/log4j.properties") ;;
esac
# AppCDS refuses a non-empty directory on the classpath: the classes go into a jar too (when the
# JDK has the jar tool; else the directory, without an archive).
JAR="${KMOCK_MATRIX_JAR:-jar}"
if command -v "$JAR" >/dev/null 2>&1; then CP="$APPJAR:$LIBCP"; else CP="$CLASSES:$LIBCP"; fi

stamp() {
  {
    sha256sum "$SRC" "$HERE/build.sh" | cut -d' ' -f1
    # the JDK, without starting a JVM: where the binaries resolve to, and their release file
    local b
    for b in "$JAVA" "$JAVAC"; do
      b="$(readlink -f "$(command -v "$b")")"
      echo "$b"; cat "$(dirname "$(dirname "$b")")/release" 2>/dev/null || stat -c '%s %Y' "$b"
    done
    echo "$CP"
    for j in "${jars[@]+"${jars[@]}"}"; do stat -c '%s %Y %n' "$j"; done
    echo "${JVM[*]}"
  } | sha256sum | cut -d' ' -f1
}

build_locked() {
  local want; want="$(stamp)"
  if [ -f "$OUT/build.stamp" ] && [ "$(cat "$OUT/build.stamp")" = "$want" ] && [ -f "$CLASSES/MatrixApp.class" ]; then
    return 0
  fi
  rm -f "$OUT/build.stamp" "$JSA"
  rm -rf "$CLASSES.tmp"
  mkdir -p "$CLASSES.tmp"
  if ! "$JAVAC" --release 17 -nowarn -encoding UTF-8 -cp "$LIBCP" -d "$CLASSES.tmp" "$SRC" >"$OUT/javac.log" 2>&1; then
    cat "$OUT/javac.log" >&2
    die "javac failed (log: $OUT/javac.log)"
  fi
  rm -rf "$CLASSES" "$APPJAR"
  mv "$CLASSES.tmp" "$CLASSES"
  if [[ "$CP" == "$APPJAR:"* ]]; then
    "$JAR" --create --file "$APPJAR.tmp" -C "$CLASSES" . || die "jar failed"
    mv "$APPJAR.tmp" "$APPJAR"
  fi

  cat >"$OUT/log4j.properties" <<'EOF'
# reload4j (kafka-clients 3.x): WARN and above, to stderr. Written by build.sh.
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
  cat >"$OUT/log4j2.properties" <<'EOF'
# log4j2 (kafka-clients 4.x): WARN and above, to stderr. Written by build.sh.
status = warn
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = stderr
EOF

  # AppCDS: a dynamic archive written at the exit of a training run (Java 13+). A wildcard
  # classpath cannot be archived.
  if [ -z "${KMOCK_MATRIX_NO_CDS:-}" ] && [[ "$CP" == "$APPJAR:"* ]] && [[ "$LIBCP" != *'*'* ]]; then
    rm -f "$JSA.tmp"
    if "$JAVA" "${JVM[@]}" -XX:ArchiveClassesAtExit="$JSA.tmp" -cp "$CP" MatrixApp warmup \
         >"$OUT/warmup.log" 2>&1 && [ -s "$JSA.tmp" ]; then
      mv "$JSA.tmp" "$JSA"
    else
      rm -f "$JSA.tmp"
      echo "java/build.sh: no class-data archive (training run failed, see $OUT/warmup.log)" >&2
    fi
  fi
  echo "$want" >"$OUT/build.stamp"
}

if command -v flock >/dev/null 2>&1; then
  exec 9>"$OUT/build.lock"
  flock 9
  build_locked
  flock -u 9
  exec 9>&-
else
  build_locked
fi

CMD=("$JAVA" "${JVM[@]}")
if [ -z "${KMOCK_MATRIX_NO_CDS:-}" ] && [ -s "$JSA" ]; then
  CMD+=("-XX:SharedArchiveFile=$JSA" -Xshare:auto)
fi
CMD+=(-cp "$CP" MatrixApp)
echo "${CMD[*]}"
