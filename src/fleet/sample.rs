//! One labelled number, as both readers produce it: a series of a Prometheus answer or a line
//! of an exporter's exposition.

use crate::fleet::model::{Consumer, Metric};

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

    /// The consumer a per-owner series names (its `pid`, `name`, `namespace`, `pod` and
    /// `container` labels), on `host`, counting `metric`: both readers label owners alike.
    pub fn consumer(&self, host: String, metric: Metric) -> Consumer {
        Consumer {
            host,
            pid: self.label("pid").into(),
            name: self.label("name").into(),
            namespace: self.label("namespace").into(),
            pod: self.label("pod").into(),
            container: self.label("container").into(),
            metric,
            value: self.value,
        }
    }
}
