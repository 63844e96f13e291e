//! Place names for photos and videos: the nearest populated place of the offline
//! GeoNames gazetteer (`<models>/places/`, fetched by `scripts/fetch-models`) for each
//! photo's or recording's GPS position (EXIF; MP4/MOV `©xyz` or QuickTime location), added to its unit by [`converters::places::annotate`] ("Place: Cannon
//! Beach, Oregon, US (United States)" and a `place` field; the coordinates stay).
//!
//! The gazetteer is read once per run, at the first photo with a position. Without it the stage is off (one note in the
//! log) and owes nothing; once it is there, indexed photos with a GPS position that it
//! has not placed yet (their `places` marker) are converted again.

use converters::places::{annotate, Gazetteer};
use converters::FileType;

use super::{Stage, StageInput};
use crate::converted::Converted;
use crate::manifest::{FileRecord, FileStatus};

/// `extra` key the image converter records a photo's position under.
const GPS_KEY: &str = "gps";

pub struct Places {
    models_dir: std::path::PathBuf,
    /// Read at the first photo with a position (most runs convert none): `None` when
    /// it is unreadable (one warning).
    gazetteer: std::sync::OnceLock<Option<Gazetteer>>,
    marker: String,
}

impl Places {
    /// The stage, when the models folder holds a gazetteer. Its marker names the data
    /// by its size, so the gazetteer itself is only read when a photo needs it.
    pub fn load(models_dir: &std::path::Path) -> Option<Places> {
        let path = models_dir.join(converters::places::GAZETTEER_FILE);
        match std::fs::metadata(&path) {
            Ok(meta) => Some(Places {
                models_dir: models_dir.to_path_buf(),
                gazetteer: std::sync::OnceLock::new(),
                marker: format!("geonames-{}", meta.len()),
            }),
            Err(_) => {
                tracing::info!(
                    dir = %models_dir.display(),
                    "no gazetteer: photos get no place names (run scripts/fetch-models)"
                );
                None
            }
        }
    }

    fn gazetteer(&self) -> Option<&Gazetteer> {
        self.gazetteer
            .get_or_init(|| match Gazetteer::from_models_dir(&self.models_dir) {
                Ok(gazetteer) => {
                    tracing::debug!(
                        places = gazetteer.as_ref().map(Gazetteer::len),
                        "gazetteer loaded"
                    );
                    gazetteer
                }
                Err(error) => {
                    tracing::warn!(%error, "gazetteer unreadable: photos get no place names");
                    None
                }
            })
            .as_ref()
    }

    #[cfg(test)]
    fn new(gazetteer: Gazetteer) -> Places {
        let marker = format!("geonames-{}", gazetteer.len());
        Places {
            models_dir: std::path::PathBuf::new(),
            gazetteer: std::sync::OnceLock::from(Some(gazetteer)),
            marker,
        }
    }
}

/// Whether files of this type can carry a recording position.
fn placed(file_type: FileType) -> bool {
    matches!(
        file_type,
        FileType::Image | FileType::Video | FileType::Audio
    )
}

impl Stage for Places {
    fn name(&self) -> &'static str {
        "places"
    }

    fn marker(&self) -> Option<String> {
        Some(self.marker.clone())
    }

    fn owes(&self, record: &FileRecord) -> bool {
        record.file_type.is_some_and(placed)
            && record.extra.contains_key(GPS_KEY)
            && record.stages.places.as_deref() != Some(self.marker.as_str())
    }

    fn applies(&self, input: &StageInput<'_>) -> bool {
        placed(input.file_type)
    }

    fn apply(&self, _input: &StageInput<'_>, converted: &mut Converted) {
        if converted.record.status != FileStatus::Indexed
            || !converted.record.extra.contains_key(GPS_KEY)
        {
            return;
        }
        // An unreadable gazetteer (warned once) places nothing; the photo is not tried
        // again on every run for it.
        if let Some(gazetteer) = self.gazetteer() {
            for unit in &mut converted.units {
                annotate(unit, gazetteer);
            }
        }
        // Placed or too far from every place: either way, done with this gazetteer.
        converted.record.stages.places = Some(self.marker.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use converters::places::Place;
    use converters::{Locator, Unit, UnitKind};

    /// A converted photo as the image converter leaves one with a GPS position.
    fn converted_photo(name: &str, lat: &str, lon: &str) -> Converted {
        let mut record = crate::convert::base_record(name, None, 100, 0, FileType::Image, None);
        record.extra.insert(GPS_KEY.into(), format!("{lat}, {lon}"));
        let mut unit = Unit::new(UnitKind::Image, Locator::default(), format!("Photo {name}"));
        unit.fields.insert("gps_lat".into(), lat.into());
        unit.fields.insert("gps_lon".into(), lon.into());
        Converted {
            record,
            units: vec![unit],
            mtime: crate::convert::mtime_of(0),
            children: Vec::new(),
        }
    }

    fn input(path: &str) -> StageInput<'_> {
        StageInput {
            path,
            on_disk: None,
            file_type: FileType::Image,
            bytes: None,
            earlier: None,
        }
    }

    #[test]
    fn photos_with_a_position_are_placed_once_per_gazetteer() {
        let stage = Places::new(Gazetteer::new(vec![Place {
            name: "Cannon Beach".into(),
            admin1: "Oregon".into(),
            country_code: "US".into(),
            lat: 45.89177,
            lon: -123.96153,
        }]));
        let mut photo = converted_photo("beach.jpg", "45.891700", "-123.961500");
        assert!(stage.owes(&photo.record), "not placed yet");
        assert!(stage.applies(&input("beach.jpg")));
        stage.apply(&input("beach.jpg"), &mut photo);
        let unit = &photo.units[0];
        assert_eq!(
            unit.text,
            "Photo beach.jpg. Place: Cannon Beach, Oregon, US"
        );
        assert_eq!(unit.fields["place"], "Cannon Beach, Oregon, US");
        assert_eq!(unit.fields["gps_lat"], "45.891700");
        assert_eq!(photo.record.stages.places.as_deref(), Some("geonames-1"));
        assert!(!stage.owes(&photo.record));

        // Far out at sea: no place, but done with this gazetteer.
        let mut sea = converted_photo("sea.jpg", "40.0", "-140.0");
        stage.apply(&input("sea.jpg"), &mut sea);
        assert_eq!(sea.units[0].text, "Photo sea.jpg");
        assert!(!stage.owes(&sea.record));

        // A picture without a position owes nothing.
        let plain = crate::convert::base_record("a.png", None, 1, 0, FileType::Image, None);
        assert!(!stage.owes(&plain));

        // A video with a recording position, as the media converter leaves one.
        let mut video = converted_photo("walk.mp4", "45.891700", "-123.961500");
        video.record.file_type = Some(FileType::Video);
        assert!(stage.owes(&video.record));
        let video_input = StageInput {
            file_type: FileType::Video,
            ..input("walk.mp4")
        };
        assert!(stage.applies(&video_input));
        stage.apply(&video_input, &mut video);
        assert_eq!(video.units[0].fields["place"], "Cannon Beach, Oregon, US");
        assert!(!stage.owes(&video.record));
    }

    #[test]
    fn no_gazetteer_means_no_stage() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Places::load(dir.path()).is_none());
    }
}
