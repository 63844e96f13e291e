"""Generated protobuf / gRPC code for ``dentate.v1`` (do not edit; run ``regen.sh``).

The stubs are committed so that installing the client needs only ``grpcio`` and
``protobuf``. Protobuf supports gencode one major version older than the runtime; the
warning it prints in that case is silenced here because it is expected.
"""

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=r"Protobuf gencode version", category=UserWarning)
    from . import dentate_pb2, dentate_pb2_grpc

__all__ = ["dentate_pb2", "dentate_pb2_grpc"]
