//! One labelled number, as both readers produce it: a series of a Prometheus answer or a line
//! of an exporter's exposition.

/// A metric name, its labels and its value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    /// A label's value; empty when absent (as Prometheus treats an absent label).
    pub fn label(&self, key: &str) -> &str {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }
}
