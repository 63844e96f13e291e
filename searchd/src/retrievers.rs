//! The retrievers behind a plan, each returning a ranked list of `(unit, score)`, best
//! first: dense (the text model's vectors), image (CLIP), and the backend's own fusion
//! of lexical and dense when it can do the whole request (Qdrant's server-side fusion).
//! The lexical list comes straight from the snapshot (`SearchSnapshot::lexical`).

use index::api::{FusedRequest, FusionMethod, SearchBackend, SearchSnapshot, UnitKey, VectorSpace};

use crate::clip::ClipSearch;
use crate::dense::Dense;
use crate::error::SearchError;
use crate::hits::RankedHit;
use crate::plan::QueryPlan;

/// Hybrid candidates fused by the backend in one request, when it fuses itself
/// (Qdrant with `--qdrant-fusion server`) and the request needs nothing that only
/// the daemon adds: weighted fusion, activity candidates, image (CLIP) hits.
pub(crate) fn backend_fused(
    backend: &dyn SearchBackend,
    dense: Option<&Dense>,
    clip: Option<&ClipSearch>,
    snapshot: &dyn SearchSnapshot,
    plan: &QueryPlan,
    depth: usize,
) -> Result<Option<Vec<RankedHit>>, SearchError> {
    let (Some(lexical), Some(dense)) = (plan.lexical.as_ref(), dense) else {
        return Ok(None);
    };
    let method = match plan.params.fusion {
        crate::fusion::Fusion::Rrf { k } => FusionMethod::Rrf { k },
        // The server's DBSF weighs its lists alike: with fitted weights that differ,
        // the daemon fuses. (It also clamps at 1 and weighs every unit kind alike: the
        // lists' ceilings and BM25's weight per kind are the daemon's alone, a known
        // difference of `--qdrant-fusion server`, which is asked for explicitly.)
        crate::fusion::Fusion::Dbsf if crate::weights::Weights::fitted().lists() == [1.0; 3] => {
            FusionMethod::Dbsf
        }
        crate::fusion::Fusion::Dbsf | crate::fusion::Fusion::Weighted { .. } => return Ok(None),
    };
    if !backend.fuses()
        || plan.activity.is_some()
        || plan.params.query.trim().is_empty()
        || plan.params.vector.is_some()
    {
        return Ok(None);
    }
    if let Some(clip) = clip {
        if backend.vector_count(VectorSpace::Image { model: clip.name() })? > 0 {
            return Ok(None);
        }
    }
    let text_vector = dense.embed_query(&plan.params.query)?;
    let request = FusedRequest {
        lexical,
        text_vector: &text_vector,
        filter: &plan.filter,
        depth,
        method,
    };
    Ok(snapshot.fused(&request)?.map(|found| {
        found
            .into_iter()
            .map(|(key, score)| RankedHit::ranked(key, score))
            .collect()
    }))
}

/// CLIP image hits: `(key, cosine)`, best first.
pub(crate) fn image_candidates(
    backend: &dyn SearchBackend,
    clip: Option<&ClipSearch>,
    snapshot: &dyn SearchSnapshot,
    plan: &QueryPlan,
    depth: usize,
) -> Result<Vec<(UnitKey, f32)>, SearchError> {
    let (query, filter) = (&plan.params.query, &plan.filter);
    let Some(clip) = clip else {
        return Ok(Vec::new());
    };
    let space = VectorSpace::Image { model: clip.name() };
    if query.trim().is_empty() || backend.vector_count(space)? == 0 {
        return Ok(Vec::new());
    }
    let query = clip.embed_text(query)?;
    Ok(snapshot.vectors(space, &query, depth, filter)?)
}

/// Dense hits: `(key, cosine)`, best first, for the embedding `pending` started;
/// the best `exact` with exact scores (the rest of the fusion depth may be
/// approximate). The backend drops vectors of units that left the index or
/// changed since.
pub(crate) fn dense_candidates(
    dense: Option<&Dense>,
    snapshot: &dyn SearchSnapshot,
    plan: &QueryPlan,
    pending: Option<crate::dense::PendingVector>,
    depth: usize,
    exact: usize,
) -> Result<Vec<(UnitKey, f32)>, SearchError> {
    let query_vector = match (dense, pending, &plan.params.vector) {
        (Some(_), _, Some(given)) => given.clone(),
        (Some(dense), Some(pending), None) => dense.finish(pending)?,
        _ => return Ok(Vec::new()),
    };
    Ok(snapshot.vectors_exact_top(VectorSpace::Text, &query_vector, depth, exact, &plan.filter)?)
}
