#!/usr/bin/env bash
# Builds and runs the Neo4j 5 test/demo launcher (see README.md).
#
#   launcher.sh build          build target/ if missing or older than pom.xml/sources
#   launcher.sh run [flags]    build if needed, then exec java in the foreground
#   launcher.sh classpath      print the java classpath (after building if needed)
#
# Flags of `run` go to memoria.neo4j.Launcher: --port N, --auth USER:PASS,
# --pagecache SIZE, --data DIR, --work-dir DIR, --no-stdin-watch, --print-logs, --help.
# JVM options come from NEO4J_LAUNCHER_JAVA_OPTS (default below); set the heap there,
# e.g. NEO4J_LAUNCHER_JAVA_OPTS='-Xmx1g'.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MAIN_CLASS=memoria.neo4j.Launcher
STAMP="$DIR/target/.build-stamp"
DEFAULT_JAVA_OPTS="-Xms64m -Xmx512m -XX:+UseSerialGC -XX:+DisplayVMOutputToStderr -XX:TieredStopAtLevel=1"

die() {
	echo "launcher.sh: $*" >&2
	exit 1
}

java_bin() {
	if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
		echo "$JAVA_HOME/bin/java"
	elif command -v java >/dev/null 2>&1; then
		command -v java
	else
		return 1
	fi
}

check_java() {
	local java ver major
	java="$(java_bin)" || die "java not found (need JDK/JRE 17 or newer on PATH or in JAVA_HOME)"
	ver="$("$java" -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')"
	major="${ver%%.*}"
	[[ "$major" == 1 ]] && major="$(echo "$ver" | cut -d. -f2)"
	[[ "$major" =~ ^[0-9]+$ ]] || die "cannot parse java version from '$java -version' (got '$ver')"
	((major >= 17)) || die "java $ver found at $java; need java 17 or newer"
}

needs_build() {
	[[ -f "$STAMP" && -d "$DIR/target/classes" && -d "$DIR/target/dependency" ]] || return 0
	# Rebuild when pom.xml or any source is newer than the last successful build.
	[[ -n "$(find "$DIR/pom.xml" "$DIR/src" -newer "$STAMP" -print -quit 2>/dev/null)" ]]
}

build() {
	check_java
	if ! needs_build; then
		return 0
	fi
	command -v mvn >/dev/null 2>&1 || die "mvn (Maven 3.6+) not found on PATH; install it (e.g. apt-get install maven)"
	if [[ -z "${JAVA_HOME:-}" ]]; then
		# mvn uses JAVA_HOME or the java on PATH; make it the same JDK we checked.
		JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(java_bin)")")")"
		export JAVA_HOME
	fi
	echo "launcher.sh: building Neo4j launcher in $DIR (first build downloads ~150 MB from Maven Central)" >&2
	rm -rf "$DIR/target/dependency" "$DIR/target/classes"
	(cd "$DIR" && mvn -q -B package dependency:copy-dependencies 2>&1) | sed "s/\x1b\[[0-9;]*m//g" >&2 ||
		die "maven build failed (see output above)"
	touch "$STAMP"
}

classpath() {
	echo "$DIR/target/classes:$DIR/target/dependency/*"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
build)
	build
	;;
run)
	build
	# shellcheck disable=SC2086 # word splitting of the JVM options is intended
	exec "$(java_bin)" ${NEO4J_LAUNCHER_JAVA_OPTS:-$DEFAULT_JAVA_OPTS} -cp "$(classpath)" "$MAIN_CLASS" "$@"
	;;
classpath)
	build
	classpath
	;;
*)
	echo "usage: $0 build | run [--port N] [--auth USER:PASS] [--pagecache SIZE] [--data DIR] [--work-dir DIR] [--no-stdin-watch] [--print-logs] | classpath" >&2
	exit 2
	;;
esac
