//! The models Dentate runs, shared by the indexer and the daemon: the MiniLM text
//! encoder ([`embed`]) and the windows a long text is embedded as ([`windows`]), the
//! bring-your-own CLIP towers ([`clip`]), ONNX Runtime's environment and sessions
//! ([`onnx`]), and one runner for external tools with a time limit ([`process`]).
//! It knows nothing of walking, converting or serving.

pub mod clip;
pub mod embed;
pub mod onnx;
pub mod process;
pub mod windows;
