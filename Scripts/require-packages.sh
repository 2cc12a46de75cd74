#!/usr/bin/env bash
# Sourced by the measuring scripts: installs, from Debian's registry, the packages of whatever they
# need that this machine lacks. Each need is kind:what:package, the kind `header` (a file under
# /usr/include) or `command` (a program on the PATH).
#
#   source "$root/Scripts/require-packages.sh"
#   require_packages header:sqlite3.h:libsqlite3-dev command:sqlite3:sqlite3
require_packages() {
    local missing=() need kind what package
    for need in "$@"; do
        IFS=: read -r kind what package <<<"$need"
        case $kind in
            header) [ -f "/usr/include/$what" ] || missing+=("$package") ;;
            command) command -v "$what" >/dev/null || missing+=("$package") ;;
            *) echo "require_packages: unknown kind '$kind' in '$need'" >&2; return 64 ;;
        esac
    done
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi
}
