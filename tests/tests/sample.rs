//! The shipped sample profile (`samples/profile`), indexed once and served once for all
//! the API checks below.

use dentate_proto::v1 as pb;
use serde_json::json;
use tonic::Code;

use crate::harness::{copy_tree, index, repo_root, result_paths, url_path, Daemon};

struct Served {
    profile: tempfile::TempDir,
    _index: tempfile::TempDir,
    summary: serde_json::Value,
    daemon: Daemon,
}

/// Index and serve a copy of the sample profile (nextest runs each test in its own
/// process, so sharing across tests would not save anything; dropping it stops the
/// daemon).
fn served() -> Served {
    let profile = tempfile::tempdir().unwrap();
    copy_tree(&repo_root().join("samples/profile"), profile.path());
    let index_dir = tempfile::tempdir().unwrap();
    let summary = index(profile.path(), index_dir.path());
    let daemon = Daemon::start(index_dir.path());
    Served {
        profile,
        _index: index_dir,
        summary,
        daemon,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A lexical search: the facts below are the BM25 + locator acceptance set (hybrid, the
/// server's default, is measured on the persona questions by `dentate-eval`).
fn search_request(query: &str, top_k: u32) -> pb::SearchRequest {
    pb::SearchRequest {
        query: query.to_string(),
        top_k,
        mode: pb::SearchMode::Lexical as i32,
        ..Default::default()
    }
}

#[test]
fn every_sample_file_is_indexed_with_every_unit_kind() {
    let served = served();
    let summary = &served.summary;
    assert_eq!(summary["files"]["failed"], 0, "{summary}");
    let kinds = summary["units_by_kind"].as_object().unwrap();
    for kind in [
        "page", "slide", "rows", "message", "event", "span", "image", "media", "metadata",
    ] {
        assert!(
            kinds.get(kind).and_then(|v| v.as_u64()).unwrap_or(0) > 0,
            "no {kind} units: {summary}"
        );
    }
}

/// (id, query, expected file, locator check) from samples/FACTS.md: the expected file
/// must be among the top 5 files and one of its returned units must carry the locator.
const FACTS: &[(&str, &str, &str, &str)] = &[
    (
        "F01",
        "price of the picture book browser bins on the joinery invoice",
        "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf",
        "page=2",
    ),
    (
        "F02",
        "Hartcliffe invoice balance due after deposit",
        "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf",
        "page=2",
    ),
    (
        "F03",
        "until when is the joinery quotation valid",
        "Mail/Inbox/2024-02-27 Hartcliffe Joinery - quote Q-0871.eml#attachment/Quote_Q-0871.pdf",
        "page=1",
    ),
    (
        "F04",
        "quoted price per browser bin before the price rise",
        "Mail/Inbox/2024-02-27 Hartcliffe Joinery - quote Q-0871.eml#attachment/Quote_Q-0871.pdf",
        "page=1",
    ),
    (
        "F05",
        "what share of sales were children's books in 2023",
        "Documents/Shop/Lantern Business Plan 2024-2026.pdf",
        "page=5",
    ),
    (
        "F06",
        "shop turnover last year in the business plan summary",
        "Documents/Shop/Lantern Business Plan 2024-2026.pdf",
        "page=3",
    ),
    (
        "F07",
        "largest grant the West of England retail fund gives",
        "Downloads/WEIRF_Applicant_Guidance_2024.pdf",
        "page=2",
    ),
    (
        "F08",
        "how much match funding does the retail fund require",
        "Downloads/WEIRF_Applicant_Guidance_2024.pdf",
        "page=2",
    ),
    (
        "F09",
        "grant amount requested in my first draft application",
        "Documents/Grants/WEIRF application draft v1.docx",
        "page=2",
    ),
    (
        "F10",
        "final grant application total project cost and amount requested",
        "Documents/Grants/WEIRF application FINAL.odt",
        "page=1",
    ),
    (
        "F11",
        "what would happen if the grant is refused, from my pitch notes",
        "Documents/Shop/Childrens Corner pitch.pptx",
        "slide=3",
    ),
    (
        "F12",
        "toddler group parents asking for a place to sit",
        "Documents/Shop/Childrens Corner pitch.pptx",
        "slide=2",
    ),
    (
        "F13",
        "takings on Valentine's day blind date book promotion",
        "Documents/Shop/Takings Feb-Mar 2024.xlsx",
        "row=13",
    ),
    (
        "F14",
        "best trading day of the quarter",
        "Documents/Shop/Takings Feb-Mar 2024.xlsx",
        "row=34",
    ),
    (
        "F15",
        "total takings in February 2024",
        "Documents/Shop/Takings Feb-Mar 2024.xlsx",
        "row=2",
    ),
    (
        "F17",
        "deposit paid to Hartcliffe Joinery",
        "Documents/Finance/bank_statement_2024-03.csv",
        "row=4",
    ),
    (
        "F18",
        "how many copies of Salt Roads of Somerset are in stock",
        "Documents/Shop/stock_export_2024-04-02.tsv",
        "row=2",
    ),
    (
        "F19",
        "why Aoife could not work her Saturday shift",
        "Mail/Inbox/2024-02-06 Aoife - Saturday swap.eml",
        "any",
    ),
    (
        "F20",
        "dates of Children's Book Week 2024",
        "Mail/Inbox/2024-02-12 IBN February bulletin.eml",
        "any",
    ),
    (
        "F21",
        "how many copies of the French heron book were shipped",
        "Mail/Inbox/2024-02-29 Editions du Heron - commande.eml",
        "any",
    ),
    (
        "F22",
        "when will the Editions du Héron delivery arrive",
        "Mail/Inbox/2024-02-29 Editions du Heron - commande.eml",
        "any",
    ),
    (
        "F23",
        "did I choose the cafe or the children's corner for the back room",
        "Mail/Sent/2024-03-05 Re Re Cafe or childrens corner.eml",
        "any",
    ),
    (
        "F24",
        "cafe food business registration how long before opening",
        "Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml",
        "any",
    ),
    (
        "F25",
        "when is the VAT return due",
        "Mail/Inbox/2024-03-05 Gareth - Re Cafe or childrens corner.eml",
        "any",
    ),
    (
        "F26",
        "deadline to return the grant acceptance form",
        "Mail/Inbox/2024-04-10 WEIRF grant offer.eml",
        "any",
    ),
    (
        "F27",
        "which evening is choir rehearsal every week",
        "Calendar/Ros.ics",
        "event",
    ),
    (
        "F28",
        "choir practice weeks with no rehearsal (half-term, Easter)",
        "Calendar/Ros.ics",
        "event",
    ),
    (
        "F29",
        "day the shop was closed for stock-take",
        "Calendar/Ros.ics",
        "event",
    ),
    (
        "F30",
        "small press fair stall number",
        "Calendar/Ros.ics",
        "event",
    ),
    (
        "F31",
        "who ordered the lichens field guide and when",
        "Documents/Apps/special_orders.sqlite",
        "row=5",
    ),
    (
        "F32",
        "date of the choir spring concert",
        "Notes/choir.md",
        "line=9",
    ),
    (
        "F33",
        "bank loan interest rate and term",
        "Notes/bank-meeting-2024-02-20.md",
        "line=5",
    ),
    (
        "F34",
        "when did I plant the potatoes at the allotment",
        "Notes/allotment.md",
        "line=7",
    ),
    (
        "F35",
        "till sync upload error payload too large",
        "Code/till-sync/logs/sync-2024-03.log",
        "line=16",
    ),
    (
        "F36",
        "why does the sync script use batches of 200",
        "Code/till-sync/sync_sales.py",
        "line=15",
    ),
    (
        "F37",
        "how many days of till backups are kept on the NAS",
        "Code/till-sync/backup.sh",
        "line=4",
    ),
    (
        "F38",
        "shop id in the till sync configuration",
        "Code/till-sync/config.json",
        "line=2",
    ),
    (
        "F39",
        "what did the reading group think of The Lighthouse Ledger",
        "Documents/Shop/reading_group.jsonl",
        "line=3",
    ),
    (
        "F40",
        "best day in the takings notebook analysis",
        "Code/notebooks/takings_analysis.ipynb",
        "any",
    ),
    (
        "F41",
        "stall fee for shops at the Bristol small press fair",
        "Downloads/Bristol Small Press Fair 2024 - Exhibitor information.html",
        "any",
    ),
    (
        "F42",
        "publication date of Salt Roads of Somerset in the distributor feed",
        "Downloads/severn_onix_feed_2024-03.xml",
        "line=26",
    ),
    (
        "F43",
        "when does the bookshop website domain need renewing",
        "Documents/Archive/lantern-website-backup-2024-02-01.zip",
        "any",
    ),
    (
        "F44",
        "cost of Felix's trampoline birthday party",
        "Documents/Personal/Felix birthday plan.txt",
        "line=4",
    ),
    (
        "F45",
        "things to do before the small press fair",
        "Desktop/todo.txt",
        "line=5",
    ),
    (
        "F48",
        "choir alto practice recording",
        "Music/Choir/Requiem alto line practice.mp3",
        "any",
    ),
    (
        "F49",
        "shelving installation video",
        "Videos/2024-03-17 shelving install timelapse.mp4",
        "any",
    ),
];

/// Facts from samples/FACTS.md that lexical retrieval alone cannot find, kept here so
/// they are not forgotten: F16's row does hold "LOAN REPAYMENT", but BM25 ranks five
/// files with "bank", "loan", "March" ahead of a 20-line CSV (needs dense retrieval or
/// the planner's structure signals); F46/F47 are photos whose content (a window
/// display, an allotment) needs visual tags. They join `FACTS` with those issues.
#[allow(dead_code)]
const PENDING_FACTS: &[(&str, &str, &str, &str)] = &[
    (
        "F16",
        "monthly loan repayment on the March bank statement",
        "Documents/Finance/bank_statement_2024-03.csv",
        "row=14",
    ),
    (
        "F46",
        "photo of the blind date with a book window display",
        "Pictures/2024/IMG_20240217_101522.jpg",
        "any",
    ),
    (
        "F47",
        "allotment photo taken with which phone",
        "Pictures/2024/IMG_20240330_112605.jpg",
        "any",
    ),
];

fn locator_matches(locator: &pb::Locator, expected: &str) -> bool {
    let (key, value) = expected.split_once('=').unwrap_or((expected, ""));
    let number: u64 = value.parse().unwrap_or(0);
    match key {
        "page" => locator.page == Some(number as u32),
        "slide" => locator.slide == Some(number as u32),
        "line" if !locator.lines.is_empty() => locator.lines.contains(&number),
        "line" => {
            locator.line_start.unwrap_or(u64::MAX) <= number
                && number <= locator.line_end.unwrap_or(0)
        }
        "row" => {
            locator.row_start.unwrap_or(u64::MAX) <= number
                && number <= locator.row_end.unwrap_or(0)
        }
        "sheet" => locator.sheet.as_deref() == Some(value),
        "event" => locator.event_uid.is_some(),
        "any" => true,
        other => panic!("unknown locator check {other}"),
    }
}

#[test]
fn sample_facts_are_found_with_their_locators() {
    let served = served();
    let daemon = &served.daemon;
    runtime().block_on(async {
        let mut client = daemon.client().await;
        let mut misses = Vec::new();
        for (id, query, path, locator) in FACTS {
            let reply = client
                .search(search_request(query, 5))
                .await
                .unwrap()
                .into_inner();
            let hit = reply
                .files
                .iter()
                .find(|f| f.file.as_ref().unwrap().path == *path);
            match hit {
                None => misses.push(format!(
                    "{id} {query:?}: {path} not in top 5 ({:?})",
                    reply
                        .files
                        .iter()
                        .map(|f| f.file.as_ref().unwrap().path.clone())
                        .collect::<Vec<_>>()
                )),
                Some(hit) => {
                    if !hit
                        .units
                        .iter()
                        .any(|u| locator_matches(u.locator.as_ref().unwrap(), locator))
                    {
                        misses.push(format!(
                            "{id} {query:?}: {path} found but no unit at {locator}: {:?}",
                            hit.units
                                .iter()
                                .map(|u| u.locator.clone())
                                .collect::<Vec<_>>()
                        ));
                    }
                }
            }
        }
        assert!(
            misses.is_empty(),
            "{} of {} facts missed:\n{}",
            misses.len(),
            FACTS.len(),
            misses.join("\n")
        );

        // The log's days without sales, scattered over the month, come as one unit that
        // lists their lines (the log's records of one kind).
        let log = "Code/till-sync/logs/sync-2024-03.log";
        let closed: Vec<u64> = std::fs::read_to_string(served.profile.path().join(log))
            .unwrap()
            .lines()
            .enumerate()
            .filter(|(_, line)| line.contains("nothing to upload (shop closed)"))
            .map(|(i, _)| i as u64 + 1)
            .collect();
        assert!(closed.len() >= 3, "{closed:?}");
        let reply = client
            .search(search_request("nothing to upload shop closed", 5))
            .await
            .unwrap()
            .into_inner();
        let units: Vec<&pb::UnitHit> = reply
            .files
            .iter()
            .filter(|f| f.file.as_ref().unwrap().path == log)
            .flat_map(|f| &f.units)
            .collect();
        let gathered = units
            .iter()
            .find(|u| !u.locator.as_ref().unwrap().lines.is_empty())
            .unwrap_or_else(|| panic!("no unit of gathered lines: {units:?}"));
        assert_eq!(gathered.locator.as_ref().unwrap().lines, closed);
        assert_eq!(gathered.text.lines().count(), closed.len());
    });
}

#[test]
fn grpc_health_reflection_stats_and_file_tools() {
    let served = served();
    let daemon = &served.daemon;
    runtime().block_on(async {
        // Standard health service.
        let channel = tonic::transport::Channel::from_shared(format!("http://{}", daemon.grpc))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        let status = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: "dentate.v1.Dentate".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            status.status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32
        );

        // Server reflection lists our service (what grpcurl uses).
        use tonic_reflection::pb::v1::{
            server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
            ServerReflectionRequest,
        };
        let mut reflection = ServerReflectionClient::new(channel);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut stream = reflection
            .server_reflection_info(tokio_stream::iter(vec![request]))
            .await
            .unwrap()
            .into_inner();
        let response = stream.message().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
            panic!("no service list")
        };
        let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        assert!(
            names.contains(&"dentate.v1.Dentate".to_string()),
            "{names:?}"
        );

        let mut client = daemon.client().await;
        let stats = client
            .stats(pb::StatsRequest {})
            .await
            .unwrap()
            .into_inner();
        assert!(stats.files_indexed >= 20, "{stats:?}");
        assert!(stats.units >= stats.files_indexed);
        assert!(!stats.last_commit.is_empty());

        // ListFiles with a glob, GetMetadata and GetText on one PDF.
        let pdfs = client
            .list_files(pb::ListFilesRequest {
                pattern: "**/*.pdf".into(),
                limit: 0,
                include_failed: false,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!pdfs.files.is_empty());
        assert!(pdfs.files.iter().all(|f| f.path.ends_with(".pdf")));
        let pdf = &pdfs.files[0];
        let meta = client
            .get_metadata(pb::FileRequest {
                path: pdf.path.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(meta.modality, "document");
        assert_eq!(meta.status, "indexed");
        let text = client
            .get_text(pb::FileRequest {
                path: pdf.path.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(text.segments.len() as u32, meta.unit_count);
        let pages: Vec<u32> = text
            .segments
            .iter()
            .map(|s| s.locator.as_ref().unwrap().page.unwrap())
            .collect();
        assert_eq!(pages, (1..=pages.len() as u32).collect::<Vec<_>>());

        // Render: a PDF page, an image, a video frame.
        let page = client
            .render(pb::RenderRequest {
                path: pdf.path.clone(),
                page: Some(1),
                second: None,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(page.content_type, "image/jpeg");
        assert!(page.data.starts_with(b"\xFF\xD8"));
        for (pattern, second) in [("**/*.jpg", None), ("**/*.mp4", Some(1.0))] {
            let file = client
                .list_files(pb::ListFilesRequest {
                    pattern: pattern.into(),
                    limit: 1,
                    include_failed: false,
                })
                .await
                .unwrap()
                .into_inner()
                .files
                .remove(0);
            let rendered = client
                .render(pb::RenderRequest {
                    path: file.path.clone(),
                    page: None,
                    second,
                })
                .await
                .unwrap_or_else(|e| panic!("render {}: {e}", file.path))
                .into_inner();
            assert!(rendered.content_type.starts_with("image/"), "{}", file.path);
            assert!(rendered.data.len() > 100);
        }
        let error = client
            .render(pb::RenderRequest {
                path: pdf.path.clone(),
                page: Some(999),
                second: None,
            })
            .await
            .unwrap_err();
        assert_eq!(error.code(), Code::InvalidArgument);

        // Path escapes and unknown files.
        for bad in ["../etc/passwd", "/etc/passwd", "a/../../b"] {
            let error = client
                .get_text(pb::FileRequest { path: bad.into() })
                .await
                .unwrap_err();
            assert_eq!(error.code(), Code::InvalidArgument, "{bad}");
        }
        let error = client
            .get_metadata(pb::FileRequest {
                path: "no/such/file.txt".into(),
            })
            .await
            .unwrap_err();
        assert_eq!(error.code(), Code::NotFound);
    });
}

#[test]
fn search_filters_grouping_and_explain() {
    let served = served();
    let daemon = &served.daemon;
    runtime().block_on(async {
        let mut client = daemon.client().await;
        // A broad query, grouped: distinct files, at most units_per_file each.
        let mut request = search_request("the and meeting invoice report", 10);
        request.units_per_file = 2;
        request.explain = true;
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        assert!(reply.files.len() > 1);
        let mut paths: Vec<&str> = reply
            .files
            .iter()
            .map(|f| f.file.as_ref().unwrap().path.as_str())
            .collect();
        paths.dedup();
        assert_eq!(paths.len(), reply.files.len(), "files repeat");
        for file in &reply.files {
            assert!(!file.units.is_empty() && file.units.len() <= 2);
            let explain = file.units[0].explain.as_ref().expect("explain");
            assert!(
                explain.signals.keys().any(|k| k.starts_with("bm25.")),
                "{explain:?}"
            );
        }
        assert!(reply
            .explain
            .as_ref()
            .unwrap()
            .notes
            .iter()
            .any(|n| n.starts_with("terms:")));

        // Modality and extension filters.
        request.explain = false;
        request.modalities = vec!["document".into()];
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        assert!(!reply.files.is_empty());
        assert!(reply
            .files
            .iter()
            .all(|f| f.file.as_ref().unwrap().modality == "document"));
        request.modalities.clear();
        request.extensions = vec!["EML".into()];
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        assert!(reply
            .files
            .iter()
            .all(|f| f.file.as_ref().unwrap().extension == "eml"));

        // A content-time range that holds nothing.
        request.extensions.clear();
        request.content_time = Some(pb::TimeRange { start: 1, end: 2 });
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        assert!(reply.files.is_empty());

        // Path prefix filter.
        let listing = client
            .list_files(pb::ListFilesRequest {
                pattern: "**/*.eml".into(),
                limit: 1,
                include_failed: false,
            })
            .await
            .unwrap()
            .into_inner();
        let folder = listing.files[0]
            .path
            .rsplit_once('/')
            .unwrap()
            .0
            .to_string();
        let mut request = search_request("the and meeting invoice report", 10);
        request.path_prefixes = vec![folder.clone()];
        let reply = client.search(request).await.unwrap().into_inner();
        assert!(reply
            .files
            .iter()
            .all(|f| f.file.as_ref().unwrap().path.starts_with(&folder)));

        // The planner reads time expressions (shown in explain) and can be switched off.
        let mut request = search_request("joinery invoice in March 2024", 5);
        request.explain = true;
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        let notes = reply.explain.unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("time:") && n.contains("2024-03-01")),
            "{notes:?}"
        );
        request.content_time = Some(pb::TimeRange {
            start: 1_700_000_000,
            end: 0,
        });
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        let notes = reply.explain.unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("overrides the query's dates")),
            "{notes:?}"
        );
        request.content_time = None;
        request.disable_planner = vec!["time".into()];
        let reply = client.search(request.clone()).await.unwrap().into_inner();
        assert!(reply
            .explain
            .unwrap()
            .notes
            .contains(&"time: off".to_string()));
        request.disable_planner = vec!["astrology".into()];
        let error = client.search(request).await.unwrap_err();
        assert_eq!(error.code(), Code::InvalidArgument);

        // Bad requests are INVALID_ARGUMENT.
        let error = client
            .search(search_request("the of and", 10))
            .await
            .unwrap_err();
        assert_eq!(error.code(), Code::InvalidArgument);
        let mut request = search_request("invoice", 5000);
        let error = client.search(request.clone()).await.unwrap_err();
        assert_eq!(error.code(), Code::InvalidArgument);
        request.top_k = 5;
        request.modalities = vec!["hologram".into()];
        let error = client.search(request).await.unwrap_err();
        assert_eq!(error.code(), Code::InvalidArgument);
    });
}

#[test]
fn http_gateway_speaks_hippocamp_and_search_r1() {
    let served = served();
    let daemon = &served.daemon;
    let (status, health) = daemon.get("/health");
    assert_eq!(status, 200);
    assert_eq!(health["status"], "ok");

    let (status, reply) = daemon.post("/retrieve", r#"{"query": "invoice total", "top_k": 4}"#);
    assert_eq!(status, 200, "{reply}");
    let results = reply["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 4);
    assert_eq!(reply["query"], "invoice total");
    assert_eq!(reply["reranked"], false);
    for result in results {
        for key in ["id", "text", "score", "metadata"] {
            assert!(result.get(key).is_some(), "{key} missing in {result}");
        }
        for key in [
            "file_path",
            "file_name",
            "file_type",
            "modality",
            "content_time",
        ] {
            assert!(
                result["metadata"].get(key).is_some(),
                "{key} missing in {result}"
            );
        }
    }

    // Search-R1 dialect: same results plus the list-of-lists form.
    let (status, r1) = daemon.post(
        "/search",
        r#"{"queries": ["invoice total", "calendar"], "topk": 4, "return_scores": true}"#,
    );
    assert_eq!(status, 200, "{r1}");
    assert_eq!(result_paths(&r1), result_paths(&reply));
    let lists = r1["result"].as_array().unwrap();
    assert_eq!(lists.len(), 2);
    assert!(lists[0][0]["document"]["contents"].as_str().unwrap().len() > 10);

    // Grouped search over HTTP.
    let (status, grouped) = daemon.post(
        "/api/search",
        &json!({"query": "invoice total", "top_k": 3}).to_string(),
    );
    assert_eq!(status, 200, "{grouped}");
    assert!(grouped["files"].as_array().unwrap().len() <= 3);

    // Bad requests: 400 with a message, never 500.
    for body in [
        "",
        "not json",
        "{}",
        r#"{"query": 5}"#,
        r#"{"query": "x", "top_k": -1}"#,
        r#"{"queries": []}"#,
        r#"{"query": "invoice", "top_k": 100000}"#,
        r#"{"query": "invoice", "mode": "psychic"}"#,
        r#"{"query": "the of"}"#,
    ] {
        let (status, reply) = daemon.post("/retrieve", body);
        assert_eq!(status, 400, "{body:?} → {reply}");
        assert!(
            reply["error"]
                .as_str()
                .map(|e| !e.is_empty())
                .unwrap_or(false),
            "{reply}"
        );
    }
}

#[test]
fn http_file_tools_serve_inside_the_profile_only() {
    let served = served();
    let daemon = &served.daemon;
    let (status, listing) = daemon.get("/api/list_files?pattern=**/*.pdf");
    assert_eq!(status, 200, "{listing}");
    assert_eq!(listing["success"], true);
    let files = listing["data"]["files"].as_array().unwrap();
    assert!(!files.is_empty());
    let pdf = files[0]["file_path"].as_str().unwrap().to_string();

    let (status, text) = daemon.get(&format!("/api/return_txt/{}", url_path(&pdf)));
    assert_eq!(status, 200, "{text}");
    assert_eq!(text["data"]["file_info"]["file_path"], pdf.as_str());
    let segments = text["data"]["segments"].as_array().unwrap();
    assert!(!segments.is_empty());
    assert_eq!(segments[0]["page"], 1);
    assert!(segments[0]["content"].is_string());

    let (status, meta) = daemon.get(&format!("/api/return_metadata/{}", url_path(&pdf)));
    assert_eq!(status, 200, "{meta}");
    assert_eq!(meta["metadata"]["file_modality"], "document");

    let (status, bytes) = daemon.get_raw(&format!("/api/serve_file/{}", url_path(&pdf)));
    assert_eq!(status, 200);
    assert_eq!(
        bytes,
        std::fs::read(served.profile.path().join(&pdf)).unwrap()
    );

    let (status, image) = daemon.get(&format!("/api/return_img/{}?page=1", url_path(&pdf)));
    assert_eq!(status, 200, "{image}");
    assert_eq!(image["success"], true, "{image}");
    // base64 of a JPEG's FF D8 FF magic.
    assert!(
        image["image_b64"].as_str().unwrap().starts_with("/9j/"),
        "{image}"
    );
    // HippoCamp's tools answer failures with HTTP 200 and success false.
    let (status, image) = daemon.get(&format!("/api/return_img/{}?page=999", url_path(&pdf)));
    assert_eq!(status, 200, "{image}");
    assert_eq!(image["success"], false);
    assert!(image["error"].as_str().unwrap().contains("out of range"));

    // Escapes: dot-dot (plain and percent-encoded), absolute paths, unknown files.
    for path in [
        "/api/return_ori/../../../../etc/passwd",
        "/api/return_ori/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/return_ori/..%2f..%2f..%2fetc%2fpasswd",
        "/api/return_ori//etc/passwd",
        "/api/return_ori/%2fetc%2fpasswd",
        "/api/return_txt/../../etc/passwd",
        "/api/return_metadata/%2e%2e/secret",
        "/api/return_ori/Notes/../../../etc/passwd",
    ] {
        let (status, body) = daemon.get_raw(path);
        let refused = status == 404
            || serde_json::from_slice::<serde_json::Value>(&body)
                .is_ok_and(|v| v["success"] == false);
        assert!(refused, "{path}: {status}");
        assert!(
            !String::from_utf8_lossy(&body).contains("root:"),
            "{path} leaked a file"
        );
    }

    // An indexed file replaced by a symlink that leaves the profile is not served.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "top secret").unwrap();
    let victim = served.profile.path().join(&pdf);
    std::fs::remove_file(&victim).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), &victim).unwrap();
    for route in ["serve_file", "return_ori", "return_txt"] {
        let (status, body) = daemon.get_raw(&format!("/api/{route}/{}", url_path(&pdf)));
        let text = String::from_utf8_lossy(&body);
        assert!(
            status == 404 || text.contains("\"success\":false"),
            "{route}: {status} {text}"
        );
        assert!(!text.contains("top secret"), "{route}: {text}");
    }
}
