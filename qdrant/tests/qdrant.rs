//! The Qdrant backend against a real server: `../shared/bin/qdrant` beside the repository
//! (started on free loopback ports in a temporary folder), or `DENTATE_QDRANT_URL` (gRPC)
//! when set. Without either the tests print one `skipped:` line and pass.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use converters::{FileType, Locator, Modality, Unit, UnitKind};
use dentate_qdrant::{sync, QdrantBackend, QdrantConfig};
use index::api::{
    FusedRequest, FusionMethod, LexicalField, LexicalRequest, LexicalSignal, SearchBackend,
    StoreWriter, TimeOrder, UnitFilter, UnitPayload, UnitSource, VectorSpace,
};
use index::manifest::{FileRecord, FileStatus};
use index::vector::{normalize, text_hash, unit_embedding_text, TEXT_DIM};
use index::{IndexHandle, IndexLayout, IndexWriter, StoredUnit};
use qdrant_client::qdrant::{Condition, CountPointsBuilder, Filter};

/// Tests share the two cores: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

use dentate_qdrant::testing::{qdrant_binary, require_server, Node};

fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{name}-{}-{nanos}", std::process::id())
}

// ---------------------------------------------------------------------------------------
// A small embedded index

fn time(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

struct FixtureFile {
    path: &'static str,
    modality: Modality,
    ext: &'static str,
    kind: UnitKind,
    texts: Vec<&'static str>,
    time: &'static str,
}

fn fixture_files() -> Vec<FixtureFile> {
    let file = |path, modality, ext, kind, texts: Vec<&'static str>, time| FixtureFile {
        path,
        modality,
        ext,
        kind,
        texts,
        time,
    };
    vec![
        file(
            "Documents/Finance/budget-2024.pdf",
            Modality::Document,
            "pdf",
            UnitKind::Page,
            vec![
                "Quarterly budget report for the finance team",
                "Budget tables: salaries, rent, travel",
                "Appendix with the auditor's remarks",
            ],
            "2024-01-15T09:00:00+01:00",
        ),
        file(
            "Documents/Notes/ideas.txt",
            Modality::Text,
            "txt",
            UnitKind::Span,
            vec![
                "Ideas for the garden: lemon tree, tomatoes",
                "Rust ownership and borrowing notes",
                "Reading list: history of Lisbon",
                "Call the plumber about the leaking sink",
            ],
            "2023-06-01T18:30:00+02:00",
        ),
        file(
            "Mail/Inbox/trip.eml",
            Modality::Text,
            "eml",
            UnitKind::Message,
            vec!["Flight booking confirmation to Lisbon, Portugal, departing in May"],
            "2024-04-02T07:45:00+00:00",
        ),
        file(
            "Mail/Inbox/trip.eml#attachment/itinerary.pdf",
            Modality::Document,
            "pdf",
            UnitKind::Page,
            vec![
                "Itinerary: hotel in Alfama, tram 28, pasteis de nata",
                "Return flight details and baggage allowance",
            ],
            "2024-04-02T07:45:00+00:00",
        ),
        file(
            "Photos/2023/beach.jpg",
            Modality::Image,
            "jpg",
            UnitKind::Image,
            vec!["Photo at the beach, sunset over the ocean"],
            "2023-08-20T20:10:00+01:00",
        ),
        file(
            "Recipes/lemon-cake.md",
            Modality::Text,
            "md",
            UnitKind::Span,
            vec![
                "Lemon cake: flour, sugar, eggs, lemons",
                "Bake for forty minutes, then glaze with lemon icing",
                "Variation: orange cake with almonds",
            ],
            "2022-12-24T15:00:00+01:00",
        ),
        file(
            "top.md",
            Modality::Text,
            "md",
            UnitKind::Span,
            vec![
                "Top level readme about the whole archive",
                "Insurance renewal and car service reminders",
            ],
            "2024-02-29T12:00:00-05:00",
        ),
        file(
            "Audio/interview.mp3",
            Modality::Audio,
            "mp3",
            UnitKind::Media,
            vec![
                "Interview transcript: the mayor discusses trams and budget",
                "Second part: questions from the audience about parking",
            ],
            "2021-03-03T10:00:00+00:00",
        ),
    ]
}

fn record_of(file: &FixtureFile, version: &str) -> FileRecord {
    let mut units_by_kind = std::collections::BTreeMap::new();
    units_by_kind.insert(file.kind.as_str().to_string(), file.texts.len() as u64);
    FileRecord {
        size: 100,
        mtime_ns: 1,
        hash: Some(format!("hash-{}-{version}", file.path)),
        converter_version: 1,
        file_type: Some(FileType::parse(file.ext).unwrap_or(FileType::Text)),
        modality: Some(file.modality),
        ext: file.ext.to_string(),
        unit_count: file.texts.len() as u32,
        units_by_kind,
        title: Some(format!(
            "Title of {}",
            file.path.rsplit('/').next().unwrap()
        )),
        parent_path: file
            .path
            .split_once("#attachment/")
            .map(|(parent, _)| parent.to_string()),
        ..FileRecord::new(file.path)
    }
}

fn units_of(file: &FixtureFile) -> Vec<Unit> {
    file.texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let when = time(file.time) + chrono::Duration::hours(i as i64);
            let mut unit = Unit::new(
                file.kind,
                Locator {
                    page: Some(i as u32 + 1),
                    ..Locator::default()
                },
                text.to_string(),
            )
            .with_time(Some(when));
            if i == 0 {
                unit = unit
                    .with_title(format!("Unit title {i}"))
                    .with_field("from", "Ann Example <ann@example.org>");
            }
            unit
        })
        .collect()
}

/// A deterministic unit-length vector per unit id.
fn vector_for(unit_id: &str) -> Vec<f32> {
    let hash = blake3::hash(unit_id.as_bytes());
    let b = hash.as_bytes();
    let mut v = vec![0.0f32; TEXT_DIM];
    for i in 0..8 {
        v[(b[i] as usize * 3 + i) % TEXT_DIM] += (i + 1) as f32;
    }
    normalize(&mut v);
    v
}

fn put_vectors(writer: &mut IndexWriter, handle: &IndexHandle, record: &FileRecord) {
    let units = handle.units_of_file(&record.file_id).unwrap();
    let rows: Vec<(String, String, Vec<f32>)> = units
        .iter()
        .map(|u| {
            // Every other unit has two windows, its own vector the second.
            let mut windows = Vec::new();
            if u.ordinal % 2 == 0 {
                windows.extend(vector_for(&format!("{}/lead", u.unit_id)));
            }
            windows.extend(vector_for(&u.unit_id));
            (
                u.unit_id.clone(),
                text_hash(&unit_embedding_text(&u.path, &u.title, &u.text)),
                windows,
            )
        })
        .collect();
    writer
        .put_text_vectors(
            &record.path,
            &record.file_id,
            record.hash.as_deref().unwrap(),
            index::vector::LEGACY_TEXT_MODEL,
            index::vector::DEFAULT_TEXT_WINDOWS,
            &rows,
        )
        .unwrap();
}

struct Fixture {
    _profile: tempfile::TempDir,
    dir: tempfile::TempDir,
}

impl Fixture {
    fn build() -> Fixture {
        let profile = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let layout = IndexLayout::new(dir.path());
        let mut writer = IndexWriter::open(&layout, profile.path(), 1, 15_000_000).unwrap();
        let mut records = Vec::new();
        for file in fixture_files() {
            let record = record_of(&file, "v1");
            writer
                .add_file(record.clone(), &units_of(&file), time(file.time))
                .unwrap();
            records.push(record);
        }
        // A failed file: a record without units.
        writer.put_record(FileRecord {
            status: FileStatus::Failed,
            reason: Some("corrupt".into()),
            error: Some("bad xref table".into()),
            ext: "pdf".into(),
            ..FileRecord::new("Broken/bad.pdf")
        });
        writer.commit().unwrap();
        let handle = IndexHandle::open(dir.path()).unwrap();
        // Vectors for every file but the audio one.
        for record in records.iter().filter(|r| r.ext != "mp3") {
            put_vectors(&mut writer, &handle, record);
        }
        writer.finish().unwrap();
        Fixture {
            _profile: profile,
            dir,
        }
    }

    fn handle(&self) -> IndexHandle {
        IndexHandle::open(self.dir.path()).unwrap()
    }

    fn all_units(&self) -> Vec<StoredUnit> {
        let handle = self.handle();
        let manifest = handle.manifest().unwrap();
        manifest
            .all()
            .unwrap()
            .iter()
            .flat_map(|r| handle.units_of_file(&r.file_id).unwrap())
            .collect()
    }
}

fn config(url: &str, profile: &str) -> QdrantConfig {
    let mut config = QdrantConfig::new(url, "/unused");
    config.collection = unique("dentate-test");
    config.profile = profile.to_string();
    config.retry_delay = Duration::from_millis(100);
    config.batch_size = 2; // several batches per file
    config
}

/// Points of a profile in the collection, by `doc_type` (`None`: all).
fn count_points(config: &QdrantConfig, doc_type: Option<&str>) -> u64 {
    let (runtime, client) = client_of(config);
    runtime.block_on(async {
        let mut must = vec![Condition::matches("profile", config.profile.clone())];
        if let Some(doc_type) = doc_type {
            must.push(Condition::matches("doc_type", doc_type.to_string()));
        }
        client
            .count(
                CountPointsBuilder::new(config.collection.clone())
                    .filter(Filter::must(must))
                    .exact(true),
            )
            .await
            .unwrap()
            .result
            .unwrap()
            .count
    })
}

fn text_request(query: &str) -> LexicalRequest {
    LexicalRequest {
        signals: vec![LexicalSignal {
            name: "bm25.text",
            field: LexicalField::Text,
            terms: dentate_qdrant::sparse::analyze(LexicalField::Text, query),
            boost: 1.0,
        }],
    }
}

/// The best unit of a plain tantivy query over the text field.
fn tantivy_top(handle: &IndexHandle, query: &str) -> Option<String> {
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
    use tantivy::schema::IndexRecordOption;
    let clauses: Vec<(Occur, Box<dyn Query>)> =
        dentate_qdrant::sparse::analyze(LexicalField::Text, query)
            .into_iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    tantivy::Term::from_field_text(handle.fields.text, &t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, q)
            })
            .collect();
    let searcher = handle.reader.searcher();
    let hits = searcher
        .search(
            &BooleanQuery::new(clauses),
            &TopDocs::with_limit(1).order_by_score(),
        )
        .unwrap();
    hits.first().map(|(_, address)| {
        let doc: tantivy::TantivyDocument = searcher.doc(*address).unwrap();
        StoredUnit::from_doc(&handle.fields, &doc).unit_id
    })
}

fn filters() -> Vec<UnitFilter> {
    vec![
        UnitFilter::default(),
        UnitFilter {
            path_prefixes: vec!["/Documents/".into()],
            ..UnitFilter::default()
        },
        UnitFilter {
            path_prefixes: vec!["Docu".into()],
            ..UnitFilter::default()
        },
        UnitFilter {
            path_prefixes: vec!["Mail/Inbox/trip.eml".into()],
            ..UnitFilter::default()
        },
        UnitFilter {
            path_prefixes: vec!["Mail".into(), "top.md".into()],
            modalities: vec!["text".into(), "document".into()],
            ..UnitFilter::default()
        },
        UnitFilter {
            extensions: vec!["pdf".into(), "jpg".into()],
            ..UnitFilter::default()
        },
        UnitFilter {
            kinds: vec!["span".into()],
            time_start: Some(time("2023-01-01T00:00:00Z").timestamp()),
            time_end: Some(time("2024-01-01T00:00:00Z").timestamp()),
            ..UnitFilter::default()
        },
        UnitFilter {
            time_start: Some(time("2024-04-02T07:45:00Z").timestamp()),
            ..UnitFilter::default()
        },
        UnitFilter {
            path_prefixes: vec!["/".into()],
            time_end: Some(time("2022-12-24T14:00:00Z").timestamp()),
            ..UnitFilter::default()
        },
    ]
}

// ---------------------------------------------------------------------------------------
// Tests

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn sync_search_and_converge() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = require_server();
    let fixture = Fixture::build();
    let config = config(&server.url, "test-profile");
    let handle = fixture.handle();
    let all = fixture.all_units();
    let manifest = handle.manifest().unwrap();
    let records = manifest.all().unwrap();
    assert_eq!(all.len(), 18);
    assert_eq!(records.len(), 9);

    // First sync: every file written, in several batches.
    let started = Instant::now();
    let mut seen = Vec::new();
    let summary = sync(&handle, &config, |p| seen.push((p.path, p.written))).unwrap();
    println!("first sync: {summary:?} in {:?}", started.elapsed());
    assert_eq!(
        (
            summary.files,
            summary.changed,
            summary.unchanged,
            summary.removed
        ),
        (9, 9, 0, 0)
    );
    assert_eq!(summary.units_written, 18);
    assert_eq!(seen.len(), 9);
    assert_eq!(count_points(&config, Some("unit")), 18);
    assert_eq!(count_points(&config, Some("file")), 9);
    let clean_total = count_points(&config, None);
    assert_eq!(clean_total, 18 + 9 + 1);

    // Second sync: nothing rewritten.
    let summary = sync(&handle, &config, |_| {}).unwrap();
    assert_eq!(
        (summary.changed, summary.unchanged, summary.units_written),
        (0, 9, 0)
    );

    let backend = QdrantBackend::open(&config).unwrap();
    assert_eq!(backend.name(), "qdrant");
    assert_eq!(backend.profile_root(), handle.info.profile_root);
    assert!(backend.location().ends_with(&config.collection));

    // Files and units read back exactly.
    let remote_files = backend.files().unwrap();
    assert_eq!(remote_files, records);
    for record in &records {
        assert_eq!(
            backend.units_of_file(&record.file_id).unwrap(),
            handle.units_of_file(&record.file_id).unwrap(),
            "{}",
            record.path
        );
        assert_eq!(backend.file(&record.path).unwrap().as_ref(), Some(record));
        assert_eq!(
            backend.file_by_id(&record.file_id).unwrap().as_ref(),
            Some(record)
        );
    }
    assert!(backend.file("nope.txt").unwrap().is_none());

    // Stats like the manifest's.
    let stats = backend.stats().unwrap();
    assert_eq!(stats.totals, manifest.totals().unwrap());
    assert_eq!(stats.units, 18);
    assert_eq!(
        stats.units_with_vectors, 16,
        "the audio file has no vectors"
    );
    assert_eq!(stats.last_commit, manifest.info("last_commit").unwrap());
    assert_eq!(backend.vector_count(VectorSpace::Text).unwrap(), 16);

    let snapshot = backend.snapshot().unwrap();
    // Lexical: the same best unit as tantivy; hits pass the filter.
    for query in [
        "budget report",
        "lemon cake",
        "lisbon",
        "plumber sink",
        "flight",
        "trams",
        "insurance",
    ] {
        let matches = snapshot
            .lexical(&text_request(query), &UnitFilter::default(), 5)
            .unwrap();
        assert!(!matches.hits.is_empty(), "{query}");
        let top = snapshot.unit(matches.hits[0].0).unwrap();
        assert_eq!(Some(top.unit_id), tantivy_top(&handle, query), "{query}");
        assert_eq!(matches.total, matches.hits.len() as u64);
    }
    // Filters: the server's filtering equals the reference on every unit.
    for filter in filters() {
        let expected: BTreeSet<String> = all
            .iter()
            .filter(|u| filter.matches(&UnitPayload::of(u)))
            .map(|u| u.unit_id.clone())
            .collect();
        let listed = snapshot
            .by_time(None, &filter, 1000, TimeOrder::OldestFirst)
            .unwrap();
        let units: Vec<StoredUnit> = listed
            .hits
            .iter()
            .map(|(k, _)| snapshot.unit(*k).unwrap())
            .collect();
        let got: BTreeSet<String> = units.iter().map(|u| u.unit_id.clone()).collect();
        assert_eq!(got, expected, "{filter:?}");
        assert!(
            units
                .windows(2)
                .all(|w| w[0].content_time <= w[1].content_time),
            "oldest first"
        );
        let lexical = snapshot
            .lexical(&text_request("budget lemon lisbon flight"), &filter, 50)
            .unwrap();
        for (key, _) in lexical.hits {
            assert!(expected.contains(&snapshot.unit(key).unwrap().unit_id));
        }
        // Vector search honours the filter too.
        let hits = snapshot
            .vectors(VectorSpace::Text, &vector_for(&all[0].unit_id), 50, &filter)
            .unwrap();
        for (key, _) in &hits {
            assert!(expected.contains(&snapshot.unit(*key).unwrap().unit_id));
        }
    }
    // by_time newest first, with and without a lexical request.
    let newest = snapshot
        .by_time(None, &UnitFilter::default(), 3, TimeOrder::NewestFirst)
        .unwrap();
    let times: Vec<i64> = newest
        .hits
        .iter()
        .map(|(k, _)| snapshot.unit(*k).unwrap().content_time)
        .collect();
    let mut all_times: Vec<i64> = all.iter().map(|u| u.content_time).collect();
    all_times.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(times, all_times[..3]);
    assert_eq!(snapshot.newest_content_time().unwrap(), Some(all_times[0]));
    let lemon = snapshot
        .by_time(
            Some(&text_request("lemon")),
            &UnitFilter::default(),
            10,
            TimeOrder::NewestFirst,
        )
        .unwrap();
    let lemon_units: Vec<StoredUnit> = lemon
        .hits
        .iter()
        .map(|(k, _)| snapshot.unit(*k).unwrap())
        .collect();
    assert_eq!(lemon_units.len(), 3);
    assert!(lemon_units
        .iter()
        .all(|u| u.text.to_lowercase().contains("lemon")));
    assert!(lemon_units
        .windows(2)
        .all(|w| w[0].content_time >= w[1].content_time));
    // Vectors: a unit's own vector finds it first, also when it is the second window.
    let target = &all[4];
    let two_windows = all
        .iter()
        .find(|u| {
            u.ordinal % 2 == 0
                && (manifest.vectors_of_file(&u.file_id).unwrap())
                    .get(&u.unit_id)
                    .is_some_and(|(_, bytes)| bytes.len() == 2 * TEXT_DIM * 4)
        })
        .unwrap();
    for unit in [target, two_windows] {
        let hits = snapshot
            .vectors(
                VectorSpace::Text,
                &vector_for(&unit.unit_id),
                3,
                &UnitFilter::default(),
            )
            .unwrap();
        assert_eq!(snapshot.unit(hits[0].0).unwrap().unit_id, unit.unit_id);
        assert!((hits[0].1 - 1.0).abs() < 1e-3, "{hits:?}");
        // One hit per unit, however many windows it has.
        let keys: BTreeSet<_> = hits.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys.len(), hits.len());
    }
    assert!(snapshot
        .vectors(VectorSpace::Text, &[1.0, 0.0], 3, &UnitFilter::default())
        .unwrap()
        .is_empty());
    // unit_by_id, highlight terms, signal scores.
    assert_eq!(
        snapshot.unit_by_id(&target.unit_id).unwrap().as_ref(),
        Some(target)
    );
    assert!(snapshot.unit_by_id("nothing:0").unwrap().is_none());
    assert!(snapshot.unit_by_id("malformed").unwrap().is_none());
    // Several at once (one request), in the order asked.
    let asked: Vec<String> = [&target.unit_id, "nothing:0", "malformed", &target.unit_id]
        .map(str::to_string)
        .to_vec();
    assert_eq!(
        snapshot.units_by_id(&asked).unwrap(),
        [Some(target.clone()), None, None, Some(target.clone())]
    );
    let terms = snapshot
        .highlight_terms(&text_request("lemon cake"))
        .unwrap();
    assert_eq!(terms.keys().cloned().collect::<Vec<_>>(), ["cake", "lemon"]);
    drop(snapshot);

    // Used from plain threads and from tokio's blocking threads.
    let backend = Arc::new(backend);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            let backend = backend.clone();
            scope.spawn(move || {
                for _ in 0..5 {
                    let snapshot = backend.snapshot().unwrap();
                    let m = snapshot
                        .lexical(&text_request("budget"), &UnitFilter::default(), 3)
                        .unwrap();
                    assert!(!m.hits.is_empty());
                }
            });
        }
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let from_async = runtime.block_on({
        let backend = backend.clone();
        async move {
            let tasks: Vec<_> = (0..4)
                .map(|_| {
                    let backend = backend.clone();
                    tokio::task::spawn_blocking(move || {
                        let snapshot = backend.snapshot().unwrap();
                        snapshot
                            .lexical(&text_request("lisbon"), &UnitFilter::default(), 3)
                            .unwrap()
                            .hits
                            .len()
                    })
                })
                .collect();
            let mut found = 0;
            for task in tasks {
                found += task.await.unwrap();
            }
            found
        }
    });
    assert!(from_async >= 4);
    drop(runtime);

    // Change one file and remove another locally: exactly those are synced.
    {
        let layout = IndexLayout::new(fixture.dir.path());
        let root = PathBuf::from(&handle.info.profile_root);
        let mut writer = IndexWriter::open(&layout, &root, 1, 15_000_000).unwrap();
        let files = fixture_files();
        let changed = FixtureFile {
            texts: vec![
                "Lemon cake, revised: less sugar",
                "Bake for thirty five minutes",
            ],
            ..fixture_files().remove(5)
        };
        let record = record_of(&changed, "v2");
        writer.delete_units(&record.file_id);
        writer
            .add_file(record.clone(), &units_of(&changed), time(changed.time))
            .unwrap();
        let removed = record_of(&files[1], "v1");
        writer.delete_units(&removed.file_id);
        writer.forget(removed.path.clone());
        writer.commit().unwrap();
        let fresh = fixture.handle();
        put_vectors(&mut writer, &fresh, &record);
        writer.finish().unwrap();
    }
    let handle = fixture.handle();
    let summary = sync(&handle, &config, |_| {}).unwrap();
    assert_eq!(
        (
            summary.files,
            summary.changed,
            summary.unchanged,
            summary.removed
        ),
        (8, 1, 7, 1)
    );
    assert_eq!(summary.units_written, 2);
    let units_now = 18 - 3 + 2 - 4;
    assert_eq!(count_points(&config, Some("unit")), units_now);
    assert_eq!(count_points(&config, None), units_now + 8 + 1);
    let recipes = fixture
        .all_units()
        .into_iter()
        .find(|u| u.path == "Recipes/lemon-cake.md")
        .unwrap();
    assert_eq!(
        backend.units_of_file(&recipes.file_id).unwrap(),
        handle.units_of_file(&recipes.file_id).unwrap()
    );
    assert!(backend.file("Documents/Notes/ideas.txt").unwrap().is_none());

    // An interrupted sync (units written, file point not yet; a stale extra unit) is
    // repaired by the next run.
    let clean = count_points(&config, None);
    interrupt(&config, &recipes);
    assert_eq!(count_points(&config, Some("unit")), units_now + 1);
    assert_eq!(count_points(&config, Some("file")), 7);
    let summary = sync(&handle, &config, |_| {}).unwrap();
    assert_eq!((summary.changed, summary.removed), (1, 0));
    assert_eq!(count_points(&config, None), clean);
    assert_eq!(
        backend.units_of_file(&recipes.file_id).unwrap(),
        handle.units_of_file(&recipes.file_id).unwrap()
    );
    drop_collection(&config);
}

/// What a sync killed between a file's units and its file point leaves behind: the file
/// point missing, and a unit point the file no longer has.
fn interrupt(config: &QdrantConfig, unit: &StoredUnit) {
    use qdrant_client::qdrant::{DeletePointsBuilder, PointStruct, UpsertPointsBuilder};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = qdrant_client::Qdrant::from_url(&config.url)
            .skip_compatibility_check()
            .build()
            .unwrap();
        let file_point = dentate_qdrant::payload::file_point_id(&config.profile, &unit.file_id);
        client
            .delete_points(
                DeletePointsBuilder::new(config.collection.clone())
                    .points(vec![file_point])
                    .wait(true),
            )
            .await
            .unwrap();
        let mut stale = unit.clone();
        stale.ordinal = 99;
        stale.unit_id = format!("{}:99", unit.file_id);
        let point: PointStruct = dentate_qdrant::sync::unit_point(
            &config.profile,
            &stale,
            None,
            &[],
            &dentate_qdrant::sparse::AvgLengths::default(),
        );
        client
            .upsert_points(
                UpsertPointsBuilder::new(config.collection.clone(), vec![point]).wait(true),
            )
            .await
            .unwrap();
    });
}

fn drop_collection(config: &QdrantConfig) {
    let (runtime, client) = client_of(config);
    let _ = runtime.block_on(client.delete_collection(config.collection.clone()));
}

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn concurrent_indexers_keep_their_profiles_apart() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = require_server();
    let (alice, bob) = (Fixture::build(), Fixture::build());
    let alice_config = config(&server.url, "alice");
    // One collection, created by whichever indexer gets there first.
    let bob_config = QdrantConfig {
        profile: "bob".into(),
        ..alice_config.clone()
    };
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| sync(&alice.handle(), &alice_config, |_| {}));
        let b = scope.spawn(|| sync(&bob.handle(), &bob_config, |_| {}));
        (a.join().unwrap(), b.join().unwrap())
    });
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!((a.changed, b.changed), (9, 9));
    // Each profile holds exactly a clean run's points: 18 units, 9 files, 1 info point.
    for config in [&alice_config, &bob_config] {
        assert_eq!(count_points(config, Some("unit")), 18, "{}", config.profile);
        assert_eq!(count_points(config, None), 28, "{}", config.profile);
    }
    // Neither run disturbed the other: re-syncing sends nothing, and each profile's
    // backend sees its own files only.
    for (fixture, config) in [(&alice, &alice_config), (&bob, &bob_config)] {
        let again = sync(&fixture.handle(), config, |_| {}).unwrap();
        assert_eq!(
            (again.changed, again.unchanged),
            (0, 9),
            "{}",
            config.profile
        );
        let backend = QdrantBackend::open(config).unwrap();
        assert_eq!(backend.files().unwrap().len(), 9);
        assert_eq!(backend.stats().unwrap().units, 18);
    }
    drop_collection(&alice_config);
}

/// A client of the test server with its own runtime.
fn client_of(config: &QdrantConfig) -> (tokio::runtime::Runtime, qdrant_client::Qdrant) {
    dentate_qdrant::testing::client(&config.url)
}

fn indexing_threshold(config: &QdrantConfig) -> Option<u64> {
    let (runtime, client) = client_of(config);
    runtime
        .block_on(client.collection_info(config.collection.clone()))
        .unwrap()
        .result
        .and_then(|i| i.config)
        .and_then(|c| c.optimizer_config)
        .and_then(|o| o.indexing_threshold)
}

/// The text vectors' quantization config of a collection, as Qdrant reports it.
fn text_quantization(config: &QdrantConfig) -> Option<qdrant_client::qdrant::QuantizationConfig> {
    use qdrant_client::qdrant::vectors_config::Config;
    let (runtime, client) = client_of(config);
    let info = runtime
        .block_on(client.collection_info(config.collection.clone()))
        .unwrap()
        .result?;
    match info.config?.params?.vectors_config?.config? {
        Config::ParamsMap(map) => map.map.get("text")?.quantization_config,
        Config::Params(_) => None,
    }
}

/// Sets the collection's indexing threshold (KB; 0: no indexing).
fn set_indexing_threshold(config: &QdrantConfig, kb: u64) {
    let (runtime, client) = client_of(config);
    runtime
        .block_on(
            client.update_collection(
                qdrant_client::qdrant::UpdateCollectionBuilder::new(config.collection.clone())
                    .optimizers_config(
                        qdrant_client::qdrant::OptimizersConfigDiffBuilder::default()
                            .indexing_threshold(kb),
                    ),
            ),
        )
        .unwrap();
}

/// Lowers the collection's indexing threshold to 1 KB and waits (up to a minute) until
/// Qdrant has built its indexes, with the quantized copies of the vectors.
fn index_now(config: &QdrantConfig) {
    set_indexing_threshold(config, 1);
    let (runtime, client) = client_of(config);
    let started = Instant::now();
    loop {
        let info = runtime
            .block_on(client.collection_info(config.collection.clone()))
            .unwrap()
            .result
            .unwrap();
        let green = info.status == qdrant_client::qdrant::CollectionStatus::Green as i32;
        if green && info.indexed_vectors_count.unwrap_or(0) > 0 {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{info:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn quantized_collections_rank_and_score_as_exact_ones() {
    use dentate_qdrant::config::Quantization;
    use qdrant_client::qdrant::quantization_config::Quantization as Stored;
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = require_server();
    let fixture = Fixture::build();
    let all = fixture.all_units();
    let exact = config(&server.url, "exact");
    sync(&fixture.handle(), &exact, |_| {}).unwrap();
    assert!(text_quantization(&exact).is_none());
    let exact_backend = QdrantBackend::open(&exact).unwrap();
    let exact_snapshot = exact_backend.snapshot().unwrap();
    // Dense questions (every component set), so that no two units tie.
    let questions: Vec<Vec<f32>> = (0..6u32)
        .map(|seed| {
            let mut v: Vec<f32> = (0..TEXT_DIM)
                .map(|i| {
                    let b = blake3::hash(&[seed.to_le_bytes(), (i as u32).to_le_bytes()].concat());
                    f32::from(b.as_bytes()[0]) / 127.5 - 1.0
                })
                .collect();
            // Lean towards one unit, so the top is not all noise.
            let own = vector_for(&all[seed as usize].unit_id);
            v.iter_mut().zip(&own).for_each(|(x, o)| *x += 8.0 * o);
            normalize(&mut v);
            v
        })
        .collect();
    let found = |snapshot: &dyn index::api::SearchSnapshot, question: &[f32]| {
        snapshot
            .vectors(VectorSpace::Text, question, 5, &UnitFilter::default())
            .unwrap()
            .into_iter()
            .map(|(key, score)| (snapshot.unit(key).unwrap().unit_id, score))
            .collect::<Vec<_>>()
    };
    for quantize in [Quantization::Int8, Quantization::Binary] {
        let mut quantized = config(&server.url, "quantized");
        quantized.quantize = quantize;
        sync(&fixture.handle(), &quantized, |_| {}).unwrap();
        // Quantized copies exist only in optimised segments: have the 18 points indexed.
        index_now(&quantized);
        let stored = text_quantization(&quantized).and_then(|q| q.quantization);
        match quantize {
            Quantization::Binary => {
                let Some(Stored::Binary(binary)) = stored else {
                    panic!("{stored:?}")
                };
                // The question is compared as four-bit levels, not as signs.
                assert_eq!(
                    binary.query_encoding,
                    Some(qdrant_client::qdrant::BinaryQuantizationQueryEncoding::scalar4bits())
                );
            }
            _ => assert!(matches!(stored, Some(Stored::Scalar(_))), "{stored:?}"),
        }
        let backend = QdrantBackend::open(&quantized).unwrap();
        let snapshot = backend.snapshot().unwrap();
        for question in &questions {
            let want = found(exact_snapshot.as_ref(), question);
            let got = found(snapshot.as_ref(), question);
            assert_eq!(want.len(), 5);
            // Rescored with the original vectors: the same units, the same cosines.
            assert_eq!(
                got.iter().map(|(id, _)| id).collect::<Vec<_>>(),
                want.iter().map(|(id, _)| id).collect::<Vec<_>>(),
                "{quantize:?}"
            );
            for ((_, a), (_, b)) in got.iter().zip(&want) {
                assert!((a - b).abs() < 1e-5, "{quantize:?}: {a} vs {b}");
            }
        }
        drop_collection(&quantized);
    }
    drop_collection(&exact);
}

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn bulk_syncs_pause_indexing_and_always_restore_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = require_server();
    let fixture = Fixture::build();
    let mut config = config(&server.url, "bulk");
    config.bulk_units = 10; // the fixture's 18 new units make a bulk sync

    let summary = sync(&fixture.handle(), &config, |_| {}).unwrap();
    assert!(summary.indexing_paused, "{summary:?}");
    let restored = indexing_threshold(&config);
    assert!(restored.is_some_and(|kb| kb > 0), "{restored:?}");
    assert_eq!(count_points(&config, Some("unit")), 18);
    assert!(dentate_qdrant::wait_indexed(&config, Duration::from_secs(60)).unwrap());
    // The info point no longer asks for a restore.
    let backend = QdrantBackend::open(&config).unwrap();
    assert_eq!(backend.stats().unwrap().units, 18);

    // A bulk sync killed before its end leaves indexing paused and the value to
    // restore on the info point: the next sync (even one with nothing to write)
    // restores it.
    set_indexing_threshold(&config, 0);
    let (runtime, client) = client_of(&config);
    let mut left = qdrant_client::Payload::new();
    left.insert("indexing_restore_kb", 12_345i64);
    runtime
        .block_on(
            client.set_payload(
                qdrant_client::qdrant::SetPayloadPointsBuilder::new(
                    config.collection.clone(),
                    left,
                )
                .points_selector(vec![dentate_qdrant::payload::profile_point_id(
                    &config.profile,
                )])
                .wait(true),
            ),
        )
        .unwrap();
    assert_eq!(indexing_threshold(&config), Some(0));
    let again = sync(&fixture.handle(), &config, |_| {}).unwrap();
    assert_eq!((again.changed, again.units_written), (0, 0));
    assert!(again.indexing_paused, "the interrupted pause is ended");
    assert_eq!(indexing_threshold(&config), Some(12_345));
    let third = sync(&fixture.handle(), &config, |_| {}).unwrap();
    assert!(!third.indexing_paused, "nothing left to restore: {third:?}");
    assert_eq!(indexing_threshold(&config), Some(12_345));
    drop_collection(&config);
}

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn server_side_fusion_fuses_both_lists_in_one_request() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = require_server();
    let fixture = Fixture::build();
    let config = config(&server.url, "fusion");
    sync(&fixture.handle(), &config, |_| {}).unwrap();
    let all = fixture.all_units();

    // Daemon fusion (the default): the backend leaves fusion to the caller.
    let daemon = QdrantBackend::open(&config).unwrap();
    assert!(!daemon.fuses());
    let lexical = text_request("lemon cake budget");
    // The question's vector is the best lexical unit's own, so that unit tops both
    // lists.
    let first = daemon.snapshot().unwrap();
    let best = first
        .lexical(&lexical, &UnitFilter::default(), 1)
        .unwrap()
        .hits[0]
        .0;
    let target = first.unit(best).unwrap();
    assert!(all.iter().any(|u| u.unit_id == target.unit_id));
    let vector = vector_for(&target.unit_id);
    let request = FusedRequest {
        lexical: &lexical,
        text_vector: &vector,
        filter: &UnitFilter::default(),
        depth: 20,
        method: FusionMethod::Rrf { k: 60.0 },
    };
    assert!(daemon
        .snapshot()
        .unwrap()
        .fused(&request)
        .unwrap()
        .is_none());

    let server_config = QdrantConfig {
        fusion: dentate_qdrant::config::Fusion::Server,
        ..config.clone()
    };
    let backend = QdrantBackend::open(&server_config).unwrap();
    assert!(backend.fuses());
    let snapshot = backend.snapshot().unwrap();
    let lexical_ids: BTreeSet<String> = snapshot
        .lexical(&lexical, &UnitFilter::default(), 20)
        .unwrap()
        .hits
        .iter()
        .map(|(k, _)| snapshot.unit(*k).unwrap().unit_id)
        .collect();
    for method in [FusionMethod::Rrf { k: 60.0 }, FusionMethod::Dbsf] {
        let fused = snapshot
            .fused(&FusedRequest { method, ..request })
            .unwrap()
            .expect("server fusion answers");
        let ids: Vec<String> = fused
            .iter()
            .map(|(k, _)| snapshot.unit(*k).unwrap().unit_id)
            .collect();
        // The unit first in both lists is first in the fused one; every lexical
        // match is there (the dense list holds the rest of the units).
        assert_eq!(ids[0], target.unit_id, "{method:?}: {ids:?}");
        assert!(lexical_ids.iter().all(|id| ids.contains(id)), "{method:?}");
        assert!(fused.windows(2).all(|w| w[0].1 >= w[1].1), "{method:?}");
        assert_eq!(
            ids.iter().collect::<BTreeSet<_>>().len(),
            ids.len(),
            "each unit once"
        );
    }
    // Filters reach both prefetches.
    let filter = filters().into_iter().nth(1).unwrap();
    let fused = snapshot
        .fused(&FusedRequest {
            filter: &filter,
            ..request
        })
        .unwrap()
        .unwrap();
    for (key, _) in fused {
        assert!(filter.matches(&UnitPayload::of(&snapshot.unit(key).unwrap())));
    }
    drop_collection(&config);
}

#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn an_unsynced_profile_is_a_clear_error() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = require_server();
    let fixture = Fixture::build();
    let config = config(&server.url, "someone-else");
    sync(&fixture.handle(), &config, |_| {}).unwrap();
    let other = QdrantConfig {
        profile: "never-synced".into(),
        ..config.clone()
    };
    let error = QdrantBackend::open(&other).err().unwrap().to_string();
    assert!(
        error.contains("never-synced") && error.contains("not been synced"),
        "{error}"
    );
    drop_collection(&config);
}

/// `GET path` on a loopback HTTP port: the body (HTTP/1.0, so never chunked).
fn http_body(port: u16, path: &str) -> Option<String> {
    let mut stream =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(300))
            .ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
}

/// A 3-node loopback cluster, collection with 3 shards × 2 replicas: one node is
/// SIGKILLed while another thread queries and while a sync runs; no query is lost
/// (retries ride over the failure), and after the node's restart a re-sync leaves
/// exactly the points of a clean run. Runs in CI (which has `../shared`), ~20 s.
#[test]
#[cfg_attr(
    not(dentate_qdrant),
    ignore = "needs a Qdrant server (../shared/bin/qdrant or DENTATE_QDRANT_URL)"
)]
fn cluster_survives_a_killed_node() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    assert!(
        qdrant_binary().is_some(),
        "the cluster test needs ../shared/bin/qdrant beside the repository"
    );
    let started = Instant::now();
    let base = tempfile::tempdir().unwrap();
    let n1 = Node::start(base.path().join("n1"), true, None);
    let n2 = Node::start(base.path().join("n2"), true, Some(n1.p2p));
    let mut n3 = Node::start(base.path().join("n3"), true, Some(n1.p2p));
    let peers_ready = Instant::now();
    loop {
        let body = http_body(n1.http, "/cluster").unwrap_or_default();
        if [n1.p2p, n2.p2p, n3.p2p]
            .iter()
            .all(|p| body.contains(&format!("127.0.0.1:{p}")))
        {
            break;
        }
        assert!(
            peers_ready.elapsed() < Duration::from_secs(30),
            "cluster: {body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    println!("cluster up in {:?}", started.elapsed());

    let fixture = Fixture::build();
    let handle = fixture.handle();
    let mut config = config(&n1.url(), "cluster-a");
    config.shard_number = 3;
    config.replication_factor = 2;
    config.retries = 8;
    config.retry_delay = Duration::from_millis(200);
    config.timeout = Duration::from_secs(5);
    sync(&handle, &config, |_| {}).unwrap();
    let clean_total = count_points(&config, None);
    assert_eq!(clean_total, 18 + 9 + 1);

    let backend = Arc::new(QdrantBackend::open(&config).unwrap());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let querier = {
        let backend = backend.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let (mut sent, mut lost) = (0u32, 0u32);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                sent += 1;
                let found = backend.snapshot().and_then(|s| {
                    s.lexical(&text_request("budget lemon"), &UnitFilter::default(), 5)
                });
                match found {
                    Ok(m) if !m.hits.is_empty() => {}
                    Ok(_) => lost += 1,
                    Err(e) => {
                        eprintln!("query lost: {e}");
                        lost += 1;
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            (sent, lost)
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    // A second profile syncs; the node is killed in the middle of it.
    let other = QdrantConfig {
        profile: "cluster-b".into(),
        ..config.clone()
    };
    let during = sync(&handle, &other, |p| {
        if p.files_done == 3 {
            n3.kill();
        }
    })
    .unwrap();
    assert_eq!(during.changed, 9);
    std::thread::sleep(Duration::from_millis(500));
    n3.spawn(true);
    println!("node 3 restarted at {:?}", started.elapsed());
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (sent, lost) = querier.join().unwrap();
    println!("queries sent {sent}, lost {lost}");
    assert!(sent > 10);
    assert_eq!(lost, 0);

    // Re-sync both profiles: each has exactly the clean run's points.
    let again = sync(&handle, &other, |_| {}).unwrap();
    assert_eq!(again.changed, 0);
    sync(&handle, &config, |_| {}).unwrap();
    assert_eq!(count_points(&other, None), clean_total);
    assert_eq!(count_points(&config, None), clean_total);
    println!("cluster test done in {:?}", started.elapsed());
    drop(backend);
    drop((n1, n2, n3));
}
