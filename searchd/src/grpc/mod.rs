//! The gRPC service (`dentate.v1.Dentate`): a thin translation of [`Engine`] methods.

pub mod profiles;

use std::sync::Arc;

use dentate_proto::v1 as pb;
use dentate_proto::v1::dentate_server::Dentate;
use index::{FileRecord, StoredUnit};
use tonic::{Request, Response, Status};

use crate::engine::{Engine, FileHit, UnitHit};
use crate::error::SearchError;
use crate::query::{Mode, SearchParams};

/// The tonic service.
pub struct DentateService {
    engine: Arc<Engine>,
}

impl DentateService {
    pub fn new(engine: Arc<Engine>) -> DentateService {
        DentateService { engine }
    }

    async fn blocking<T, F>(&self, work: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&Engine) -> Result<T, SearchError> + Send + 'static,
    {
        let engine = self.engine.clone();
        tokio::task::spawn_blocking(move || work(&engine))
            .await
            .map_err(|e| Status::internal(format!("worker failed: {e}")))?
            .map_err(status_of)
    }
}

/// Maps service errors to gRPC statuses.
pub fn status_of(error: SearchError) -> Status {
    match error {
        SearchError::InvalidArgument(message) => Status::invalid_argument(message),
        SearchError::NotFound(message) => Status::not_found(message),
        SearchError::Unavailable(message) => Status::failed_precondition(message),
        other => Status::internal(other.to_string()),
    }
}

fn params_of(request: pb::SearchRequest) -> Result<SearchParams, Status> {
    let range = request.content_time.unwrap_or_default();
    let planner = crate::query::planner_switches(&request.disable_planner).map_err(status_of)?;
    Ok(SearchParams {
        planner,
        reference_time: request.reference_time,
        context: request.context as usize,
        query: request.query,
        top_k: request.top_k as usize,
        units_per_file: request.units_per_file as usize,
        path_prefixes: request.path_prefixes,
        modalities: request.modalities,
        extensions: request.extensions,
        time_start: (range.start != 0).then_some(range.start),
        time_end: (range.end != 0).then_some(range.end),
        // Unspecified is the server's default, hybrid (answered lexically, with a note,
        // when no models are installed), as the proto documents.
        mode: match pb::SearchMode::try_from(request.mode).unwrap_or_default() {
            pb::SearchMode::Lexical => Mode::Lexical,
            pb::SearchMode::Dense => Mode::Dense,
            pb::SearchMode::Hybrid | pb::SearchMode::Unspecified => Mode::Hybrid,
        },
        fusion: crate::query::fusion_of(
            match pb::Fusion::try_from(request.fusion).unwrap_or_default() {
                pb::Fusion::Weighted => crate::query::FusionKind::Weighted,
                pb::Fusion::Dbsf => crate::query::FusionKind::Dbsf,
                pb::Fusion::Rrf => crate::query::FusionKind::Rrf,
                pb::Fusion::Unspecified => {
                    crate::query::FusionKind::unnamed(request.rrf_k, request.lexical_weight)
                }
            },
            request.rrf_k,
            request.lexical_weight,
        ),
        explain: request.explain,
        cutoff: crate::cutoff::Cutoff {
            autocut: request.autocut,
            min_score: request.min_score,
        },
        activity: crate::activity::wire::filter_of(request.activity),
        rerank: request.rerank,
        // gRPC replies always carry their snippets (a separate field from the text).
        snippets: true,
        vector: None,
    })
}

pub fn locator_of(locator: &converters::Locator) -> pb::Locator {
    pb::Locator {
        page: locator.page,
        page_label: locator.page_label.clone(),
        slide: locator.slide,
        sheet: locator.sheet.clone(),
        row_start: locator.row_start,
        row_end: locator.row_end,
        line_start: locator.line_start,
        line_end: locator.line_end,
        char_start: locator.char_start,
        char_end: locator.char_end,
        t_start_ms: locator.t_start_ms,
        t_end_ms: locator.t_end_ms,
        part: locator.part.clone(),
        event_uid: locator.event_uid.clone(),
        lines: locator.lines.clone(),
    }
}

pub fn file_info_of(record: &FileRecord) -> pb::FileInfo {
    pb::FileInfo {
        file_id: record.file_id.clone(),
        path: record.path.clone(),
        name: record.name().to_string(),
        extension: record.ext.clone(),
        file_type: record.file_type_name().to_string(),
        modality: record.modality_name().to_string(),
        size: record.size,
        modified: crate::time::rfc3339_from_ns(record.mtime_ns),
        created: record.created.clone().unwrap_or_default(),
        title: record.title.clone().unwrap_or_default(),
        author: record.author.clone().unwrap_or_default(),
        unit_count: record.unit_count,
        status: record.status.as_str().to_string(),
        error: record.error.clone().unwrap_or_default(),
        parent_path: record.parent_path.clone().unwrap_or_default(),
        extra: record.extra_all().into_iter().collect(),
    }
}

/// Units longer than this are not repeated in full in Search results (the snippet and
/// GetText cover them).
const SEARCH_TEXT_LIMIT: usize = 2000;

fn unit_hit_of(hit: &UnitHit, full_text: bool) -> pb::UnitHit {
    let unit = &hit.unit;
    pb::UnitHit {
        unit_id: unit.unit_id.clone(),
        file_path: unit.path.clone(),
        kind: unit.kind.as_str().to_string(),
        locator: Some(locator_of(&unit.locator)),
        score: f64::from(hit.score),
        snippet: hit.snippet.clone().unwrap_or_default(),
        text: if full_text || unit.text.len() <= SEARCH_TEXT_LIMIT {
            unit.text.clone()
        } else {
            String::new()
        },
        title: unit.title.clone(),
        content_time: unit.content_time_text.clone(),
        fields: unit.fields.clone().into_iter().collect(),
        explain: (!hit.signals.is_empty()).then(|| pb::Explain {
            signals: hit.signals.clone().into_iter().collect(),
            notes: Vec::new(),
        }),
        is_context: hit.is_context,
    }
}

fn file_hit_of(hit: &FileHit) -> pb::FileHit {
    pb::FileHit {
        file: Some(file_info_of(&hit.file)),
        score: f64::from(hit.score),
        units: hit.units.iter().map(|u| unit_hit_of(u, false)).collect(),
    }
}

fn segment_of(unit: &StoredUnit) -> pb::TextSegment {
    pb::TextSegment {
        unit_id: unit.unit_id.clone(),
        kind: unit.kind.as_str().to_string(),
        locator: Some(locator_of(&unit.locator)),
        title: unit.title.clone(),
        text: unit.text.clone(),
        content_time: unit.content_time_text.clone(),
        fields: unit.fields.clone().into_iter().collect(),
    }
}

fn notes_explain(notes: Vec<String>) -> Option<pb::Explain> {
    (!notes.is_empty()).then(|| pb::Explain {
        signals: Default::default(),
        notes,
    })
}

#[tonic::async_trait]
impl Dentate for DentateService {
    async fn search(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::SearchResponse>, Status> {
        let params = params_of(request.into_inner())?;
        let outcome = self.blocking(move |e| e.search(params)).await?;
        Ok(Response::new(pb::SearchResponse {
            files: outcome.files.iter().map(file_hit_of).collect(),
            total_units: outcome.total_units,
            took_ms: outcome.took_ms,
            explain: notes_explain(outcome.notes),
            activity: crate::activity::wire::summary_of(outcome.activity.as_ref()),
        }))
    }

    async fn retrieve(
        &self,
        request: Request<pb::SearchRequest>,
    ) -> Result<Response<pb::RetrieveResponse>, Status> {
        let params = params_of(request.into_inner())?;
        let outcome = self.blocking(move |e| e.retrieve(params)).await?;
        Ok(Response::new(pb::RetrieveResponse {
            units: outcome.units.iter().map(|u| unit_hit_of(u, true)).collect(),
            took_ms: outcome.took_ms,
            explain: notes_explain(outcome.notes),
            activity: crate::activity::wire::summary_of(outcome.activity.as_ref()),
            reranked: outcome.reranked,
        }))
    }

    async fn list_files(
        &self,
        request: Request<pb::ListFilesRequest>,
    ) -> Result<Response<pb::ListFilesResponse>, Status> {
        let request = request.into_inner();
        let outcome = self
            .blocking(move |e| {
                e.list_files(
                    &request.pattern,
                    request.limit as usize,
                    request.include_failed,
                )
            })
            .await?;
        Ok(Response::new(pb::ListFilesResponse {
            files: outcome.files.iter().map(file_info_of).collect(),
            truncated: outcome.truncated,
        }))
    }

    async fn get_metadata(
        &self,
        request: Request<pb::FileRequest>,
    ) -> Result<Response<pb::FileInfo>, Status> {
        let path = request.into_inner().path;
        let record = self.blocking(move |e| e.metadata(&path)).await?;
        Ok(Response::new(file_info_of(&record)))
    }

    async fn get_text(
        &self,
        request: Request<pb::FileRequest>,
    ) -> Result<Response<pb::GetTextResponse>, Status> {
        let path = request.into_inner().path;
        let (record, units) = self.blocking(move |e| e.text(&path)).await?;
        Ok(Response::new(pb::GetTextResponse {
            file: Some(file_info_of(&record)),
            segments: units.iter().map(segment_of).collect(),
        }))
    }

    async fn stats(
        &self,
        _request: Request<pb::StatsRequest>,
    ) -> Result<Response<pb::StatsResponse>, Status> {
        let stats = self.blocking(|e| e.stats()).await?;
        Ok(Response::new(pb::StatsResponse {
            files_indexed: stats.totals.indexed,
            files_failed: stats.totals.failed,
            files_skipped: stats.totals.skipped,
            units: stats.totals.units,
            units_by_kind: stats.totals.units_by_kind.into_iter().collect(),
            files_by_modality: stats.totals.files_by_modality.into_iter().collect(),
            profile_root: stats.profile_root,
            index_dir: stats.index_dir,
            last_commit: stats.last_commit.unwrap_or_default(),
            embedding_coverage: stats.embedding_coverage,
            dense_status: stats.dense_status.unwrap_or_default(),
        }))
    }

    async fn timeline(
        &self,
        request: Request<pb::TimelineRequest>,
    ) -> Result<Response<pb::TimelineResponse>, Status> {
        let request = request.into_inner();
        let range = request.range.unwrap_or_default();
        let params = crate::timeline::TimelineParams {
            start: (range.start != 0).then_some(range.start),
            end: (range.end != 0).then_some(range.end),
            when: (!request.when.trim().is_empty()).then_some(request.when),
            query: request.query,
            reference_time: request.reference_time,
            max_units: request.max_units as usize,
            activity: request.activity.unwrap_or(true),
            activity_kinds: request.activity_kinds,
        };
        let outcome = self.blocking(move |e| e.timeline(params)).await?;
        let file_of = |f: &crate::timeline::TimelineFile| {
            let first = f.first.as_ref();
            let text = |get: fn(&crate::timeline::TimelineUnit) -> &String| {
                first.map(get).cloned().unwrap_or_default()
            };
            pb::TimelineFile {
                path: f.path.clone(),
                title: f.title.clone(),
                units: f.units as u32,
                first_unit_id: text(|u| &u.unit_id),
                kind: text(|u| &u.kind),
                locator: first.map(|u| locator_of(&u.locator)),
                snippet: text(|u| &u.snippet),
                content_time: text(|u| &u.content_time),
                activity: f.activity.clone(),
            }
        };
        Ok(Response::new(pb::TimelineResponse {
            days: outcome
                .days
                .iter()
                .map(|d| {
                    let (activity, activity_counts) = crate::activity::wire::day_activity(d);
                    pb::TimelineDay {
                        date: d.date.clone(),
                        units: d.units as u32,
                        folders: d
                            .folders
                            .iter()
                            .map(|f| pb::TimelineFolder {
                                folder: f.folder.clone(),
                                files: f.files.iter().map(file_of).collect(),
                            })
                            .collect(),
                        activity,
                        activity_counts,
                    }
                })
                .collect(),
            range: outcome.range,
            units_scanned: outcome.units_scanned,
            units_matched: outcome.units_matched,
            truncated: outcome.truncated,
            took_ms: outcome.took_ms,
            explain: notes_explain(outcome.notes),
            activity_events: outcome.activity_events,
        }))
    }

    async fn routine(
        &self,
        request: Request<pb::RoutineRequest>,
    ) -> Result<Response<pb::RoutineResponse>, Status> {
        let params = crate::routine::proto::params_of(request.into_inner());
        let outcome = self.blocking(move |e| e.routine(params)).await?;
        Ok(Response::new(crate::routine::proto::response_of(outcome)))
    }

    async fn render(
        &self,
        request: Request<pb::RenderRequest>,
    ) -> Result<Response<pb::RenderResponse>, Status> {
        let request = request.into_inner();
        let rendered = self
            .blocking(move |e| {
                crate::render::render(e, &request.path, request.page, request.second)
            })
            .await?;
        Ok(Response::new(pb::RenderResponse {
            content_type: rendered.content_type.to_string(),
            data: rendered.bytes,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_translate_with_the_servers_defaults() {
        let params = params_of(pb::SearchRequest {
            query: "budget".into(),
            content_time: Some(pb::TimeRange { start: 0, end: 99 }),
            fusion: pb::Fusion::Weighted as i32,
            disable_planner: vec!["whose".into()],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(params.mode, Mode::Hybrid, "unspecified mode is hybrid");
        assert_eq!((params.time_start, params.time_end), (None, Some(99)));
        assert_eq!(
            params.fusion,
            crate::fusion::Fusion::Weighted {
                lexical_weight: crate::query::DEFAULT_LEXICAL_WEIGHT
            }
        );
        assert!(!params.planner.whose && params.planner.time);
        let lexical = params_of(pb::SearchRequest {
            mode: pb::SearchMode::Lexical as i32,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(lexical.mode, Mode::Lexical);
        let error = params_of(pb::SearchRequest {
            disable_planner: vec!["weather".into()],
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(error.code(), tonic::Code::InvalidArgument);
    }
}
