use std::time::Duration;

use serde_json::json;

use super::fields::{check_json, grpc_class, http_class, route_path};
use super::grpc::grpc_timeout;
use super::*;

fn small(slots: usize, queue: usize, timeout_ms: u64) -> Limits {
    Limits {
        concurrency: ClassLimits {
            search: slots,
            lexical: slots,
            files: slots,
            render: slots,
        },
        max_queue: queue,
        request_timeout: Duration::from_millis(timeout_ms),
        ..Limits::default()
    }
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn a_full_queue_is_refused_and_other_classes_keep_their_slots() {
    let admission = Admission::new(small(1, 1, 60_000));
    let deadline = || Deadline::from_now(Duration::from_secs(60));
    let running = admission.enter(Class::Search, deadline()).await.unwrap();
    assert!(running.is_some());
    // One may wait…
    let waiting = {
        let admission = admission.clone();
        tokio::spawn(async move { admission.enter(Class::Search, deadline()).await.is_ok() })
    };
    tokio::task::yield_now().await;
    // …the next is refused at once.
    let refused = admission
        .enter(Class::Search, deadline())
        .await
        .unwrap_err();
    assert!(matches!(refused, Rejection::Busy(_)), "{refused:?}");
    assert!(refused.message().contains("search"), "{refused:?}");
    // Lexical queries and file tools are not behind the search flood.
    assert!(admission.enter(Class::Lexical, deadline()).await.is_ok());
    assert!(admission.enter(Class::Files, deadline()).await.is_ok());
    assert!(admission
        .enter(Class::Exempt, deadline())
        .await
        .unwrap()
        .is_none());
    drop(running);
    assert!(waiting.await.unwrap());
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn waiting_past_the_deadline_is_a_queue_timeout() {
    let admission = Admission::new(small(1, 8, 100));
    let _running = admission
        .enter(Class::Files, Deadline::from_now(Duration::from_secs(60)))
        .await
        .unwrap();
    let error = admission
        .enter(Class::Files, Deadline::from_now(Duration::from_millis(100)))
        .await
        .unwrap_err();
    assert!(matches!(error, Rejection::QueueTimeout(_)), "{error:?}");
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn work_past_its_deadline_is_answered_but_keeps_its_slot_until_done() {
    let admission = Admission::new(small(1, 0, 100));
    let deadline = Deadline::from_now(Duration::from_millis(100));
    let permit = admission.enter(Class::Render, deadline).await.unwrap();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let slow = async move {
        tokio::time::sleep(Duration::from_secs(5)).await;
        let _ = done_tx.send(());
    };
    let error = admission.run(permit, deadline, slow).await.unwrap_err();
    assert!(matches!(error, Rejection::Deadline(_)), "{error:?}");
    // Still running: the class is full (no queue).
    let busy = admission
        .enter(Class::Render, Deadline::from_now(Duration::from_secs(1)))
        .await
        .unwrap_err();
    assert!(matches!(busy, Rejection::Busy(_)), "{busy:?}");
    done_rx.await.unwrap();
    tokio::task::yield_now().await;
    assert!(admission
        .enter(Class::Render, Deadline::from_now(Duration::from_secs(1)))
        .await
        .is_ok());
}

#[test]
fn every_string_and_list_of_a_json_body_is_bounded() {
    let limits = Limits {
        max_query_chars: 10,
        max_field_chars: 16,
        max_list_items: 3,
        max_top_k: 100,
        ..Limits::default()
    };
    let ok = json!({"query": "0123456789", "path_prefixes": ["abcdefghijklmnop"], "top_k": 100});
    check_json(&ok, &limits).unwrap();
    for (body, field) in [
        (json!({"query": "01234567890"}), "\"query\""),
        (json!({"queries": ["a", "01234567890"]}), "\"queries\"[1]"),
        (json!({"when": "x".repeat(1_000_000)}), "\"when\""),
        (json!({"mode": "x".repeat(17)}), "\"mode\""),
        (
            json!({"path_prefixes": ["abcdefghijklmnopq"]}),
            "\"path_prefixes\"[0]",
        ),
        (
            json!({"extensions": ["a", "b", "c", "d"]}),
            "\"extensions\"",
        ),
        (
            json!({"nested": {"deep": ["abcdefghijklmnopq"]}}),
            "\"nested\".deep[0]",
        ),
        (json!({"a_field_name_too_long": 1}), "field name"),
        (json!({"top_k": 101}), "\"top_k\""),
        (json!({"topk": 5000}), "\"topk\""),
    ] {
        let error = check_json(&body, &limits).unwrap_err();
        assert!(matches!(error, Rejection::Invalid(_)), "{body}");
        assert!(
            error.message().contains(field),
            "{field}: {}",
            error.message()
        );
        assert!(error.message().len() < 200, "the value is not echoed");
    }
}

#[test]
fn requests_are_classified_by_route_and_mode() {
    let hybrid = json!({"query": "x"});
    let lexical = json!({"query": "x", "mode": "BM25"});
    assert_eq!(http_class("/retrieve", Some(&hybrid)), Class::Search);
    assert_eq!(http_class("/api/search", Some(&lexical)), Class::Lexical);
    assert_eq!(
        http_class("/p/alice/search", Some(&lexical)),
        Class::Lexical
    );
    assert_eq!(http_class("/api/timeline", None), Class::Lexical);
    assert_eq!(http_class("/p/alice/api/routine", None), Class::Lexical);
    assert_eq!(http_class("/api/return_img/a.pdf", None), Class::Render);
    assert_eq!(http_class("/api/return_txt/a.pdf", None), Class::Files);
    assert_eq!(http_class("/health", None), Class::Exempt);
    assert_eq!(route_path("/p/alice"), "/");
    let limits = Limits::default();
    assert_eq!(
        grpc_class("/grpc.health.v1.Health/Check", b"", &limits),
        Ok(Class::Exempt)
    );
    assert_eq!(
        grpc_class("/dentate.v1.Dentate/Retrieve", b"garbage", &limits),
        Ok(Class::Search)
    );
}

#[test]
fn grpc_messages_are_checked_field_by_field() {
    use dentate_proto::v1 as pb;
    use prost::Message;
    let frame = |message: &dyn Fn(&mut Vec<u8>)| {
        let mut body = Vec::new();
        message(&mut body);
        let mut framed = vec![0];
        framed.extend_from_slice(&(body.len() as u32).to_be_bytes());
        framed.extend_from_slice(&body);
        framed
    };
    let limits = Limits::default();
    let lexical = frame(&|b| {
        pb::SearchRequest {
            query: "x".into(),
            mode: pb::SearchMode::Lexical as i32,
            ..Default::default()
        }
        .encode(b)
        .unwrap()
    });
    assert_eq!(
        grpc_class("/dentate.v1.Dentate/Search", &lexical, &limits),
        Ok(Class::Lexical)
    );
    let long_when = frame(&|b| {
        pb::TimelineRequest {
            when: "x".repeat(5000),
            ..Default::default()
        }
        .encode(b)
        .unwrap()
    });
    let error = grpc_class("/dentate.v1.Dentate/Timeline", &long_when, &limits).unwrap_err();
    assert!(error.message().starts_with("when"), "{error:?}");
    let big_k = frame(&|b| {
        pb::SearchRequest {
            top_k: 5000,
            ..Default::default()
        }
        .encode(b)
        .unwrap()
    });
    assert!(grpc_class("/dentate.v1.Dentate/Retrieve", &big_k, &limits).is_err());
    let long_path = frame(&|b| {
        pb::FileRequest {
            path: "a/".repeat(3000),
        }
        .encode(b)
        .unwrap()
    });
    assert!(grpc_class("/dentate.v1.Dentate/GetText", &long_path, &limits).is_err());
}

#[test]
fn grpc_timeouts_are_read() {
    assert_eq!(grpc_timeout("100m"), Some(Duration::from_millis(100)));
    assert_eq!(grpc_timeout("5S"), Some(Duration::from_secs(5)));
    assert_eq!(grpc_timeout("2H"), Some(Duration::from_secs(7200)));
    assert_eq!(grpc_timeout("5"), None);
    assert_eq!(grpc_timeout("x5m"), None);
    assert_eq!(grpc_timeout("1234567890S"), None);
}

#[test]
fn limits_are_validated() {
    assert!(Limits::default().validated().is_ok());
    for wrong in [
        Limits {
            max_top_k: 0,
            ..Limits::default()
        },
        Limits {
            max_top_k: 5000,
            ..Limits::default()
        },
        Limits {
            max_query_chars: 100_000,
            ..Limits::default()
        },
        Limits {
            request_timeout: Duration::ZERO,
            ..Limits::default()
        },
    ] {
        assert!(wrong.validated().is_err());
    }
}
