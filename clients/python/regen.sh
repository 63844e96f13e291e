#!/usr/bin/env bash
# Regenerates the committed gRPC stubs in src/dentate/_proto/ from
# ../../proto/proto/dentate/v1/dentate.proto with a pinned grpcio-tools, then rewrites
# their import paths so they work inside the `dentate` package.
#
# Usage: clients/python/regen.sh [OUT_DIR]     (default: src/dentate/_proto)
# PYTHON selects the interpreter (default python3); when it does not have the pinned
# grpcio-tools, a throw-away virtualenv with it is created.
set -euo pipefail

# The newest grpcio-tools that still supports Python 3.9. The generated code requires
# grpcio >= this version and protobuf >= its gencode version at run time; keep
# pyproject.toml's dependencies in step when changing it.
GRPCIO_TOOLS_VERSION=1.80.1

here="$(cd "$(dirname "$0")" && pwd)"
proto_root="$here/../../proto/proto"
out="${1:-$here/src/dentate/_proto}"
python="${PYTHON:-python3}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

have="$("$python" -c 'import importlib.metadata as m; print(m.version("grpcio-tools"))' 2>/dev/null || true)"
if [ "$have" != "$GRPCIO_TOOLS_VERSION" ]; then
  echo "regen: installing grpcio-tools==$GRPCIO_TOOLS_VERSION into a temporary virtualenv" >&2
  "$python" -m venv "$work/venv"
  "$work/venv/bin/pip" install -q "grpcio-tools==$GRPCIO_TOOLS_VERSION"
  python="$work/venv/bin/python"
fi

mkdir -p "$work/gen" "$out"
"$python" -m grpc_tools.protoc -I"$proto_root" \
  --python_out="$work/gen" --pyi_out="$work/gen" --grpc_python_out="$work/gen" \
  dentate/v1/dentate.proto

# Flatten dentate/v1/ into the package and fix the import paths and module names.
for f in dentate_pb2.py dentate_pb2.pyi dentate_pb2_grpc.py; do
  sed -e 's/^from dentate\.v1 import dentate_pb2 as /from . import dentate_pb2 as /' \
      -e "s/'dentate\.v1\.dentate_pb2'/'dentate._proto.dentate_pb2'/" \
      "$work/gen/dentate/v1/$f" > "$out/$f"
done
echo "regen: wrote $out/{dentate_pb2.py,dentate_pb2.pyi,dentate_pb2_grpc.py}" >&2
