//! Catching a converter's panic with its message **and location**, without printing it.
//!
//! A panic inside a converter is a bug of ours; the indexer reports it per file (category
//! `converter_bug`) with the message and `file:line:column`, so it is never quiet. While
//! a conversion runs on a thread, a process-wide panic hook (installed once, chained to
//! the previous hook for every other panic) records where the panic happened instead of
//! printing it over the progress display.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs a guarded conversion.
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    /// `file:line:column` of the last panic captured on this thread.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

static INSTALL: Once = Once::new();

fn install_hook() {
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                let location = info
                    .location()
                    .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.with(|slot| *slot.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic becomes `Err("message at file:line:column")`.
pub(crate) fn catching<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = CAPTURING.with(|c| c.replace(true));
    LOCATION.with(|slot| slot.borrow_mut().take());
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CAPTURING.with(|c| c.set(was));
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        match LOCATION.with(|slot| slot.borrow_mut().take()) {
            Some(location) => format!("{message} at {location}"),
            None => message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_location() {
        let error = catching(|| -> u32 {
            let v: Vec<u32> = Vec::new();
            v[3]
        })
        .unwrap_err();
        assert!(error.contains("index out of bounds"), "{error}");
        assert!(error.contains("panic_capture.rs:"), "{error}");
        assert_eq!(catching(|| 7).unwrap(), 7);
    }
}
