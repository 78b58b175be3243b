# Sourced by the integrations/dotnet scripts: quiet, offline, no lingering build servers.
# ILMAP_NUGET_SOURCE names the offline package folder (xunit, Microsoft.NET.Test.Sdk, ...); the
# default is where the project's dotnet machines keep it. When that folder does not exist, the
# restore uses the machine's own NuGet configuration, and a failed restore is reported as a skip.
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
       DOTNET_GENERATE_ASPNET_CERTIFICATE=false MSBUILDDISABLENODEREUSE=1 \
       DOTNET_CLI_WORKLOAD_UPDATE_NOTIFY_DISABLE=1
ilmap_nuget_source=${ILMAP_NUGET_SOURCE:-/opt/nuget/packages}
# The Ilmap library's own packages (Google.FlatBuffers, ZstdSharp.Port, System.IO.Hashing) are not
# in that folder: they come from the NuGet sources the machine's configuration names (read from
# outside this tree, whose NuGet.config clears them), added beside the offline folder.
ilmap_restore_args=()
ilmap_machine_sources=()
if [ -d "$ilmap_nuget_source" ]; then
    ilmap_restore_args=(--source "$ilmap_nuget_source")
    if command -v dotnet >/dev/null 2>&1; then
        while read -r s; do
            [ -n "$s" ] && ilmap_machine_sources+=("$s") && ilmap_restore_args+=(--source "$s")
        done < <(cd / && dotnet nuget list source --format short 2>/dev/null | awk '$1 ~ /^E/ {print $2}')
    fi
fi
ilmap_build_args=(-nologo -nodeReuse:false -p:UseSharedCompilation=false)

ilmap_require_dotnet() {
    if ! command -v dotnet >/dev/null 2>&1; then
        echo "SKIP: dotnet not found"
        exit 77
    fi
}
