#!/usr/bin/env bash
# Copies the alerting rules, the fleet recording rules (when there are any) and
# the Grafana dashboard into the Helm chart, which can only read files inside
# its own directory. tests/it/deploy_helm.rs checks the copies are current.
set -euo pipefail
cd "$(dirname "$0")/.."
files=deploy/helm/restop/files
cp assets/prometheus/restop-rules.yml "$files/"
cp assets/grafana/restop-dashboard.json "$files/"
if [ -f assets/prometheus/restop-fleet-rules.yml ]; then
	cp assets/prometheus/restop-fleet-rules.yml "$files/"
else
	rm -f "$files/restop-fleet-rules.yml"
fi
