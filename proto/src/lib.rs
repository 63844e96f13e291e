//! The Dentate gRPC API (`dentate.v1`): prost messages, tonic client and server, and the
//! encoded file descriptor set for server reflection.

#[allow(clippy::all, missing_docs)]
pub mod v1 {
    tonic::include_proto!("dentate.v1");
}

/// The encoded `FileDescriptorSet` of `dentate.v1`, for `tonic-reflection`.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/dentate_descriptor.bin"));
