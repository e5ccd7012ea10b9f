{{/* The name label: "restop" unless overridden. */}}
{{- define "restop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Resource names: the release name, or "restop" when the release name contains it. */}}
{{- define "restop.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- $name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "restop.selectorLabels" -}}
app.kubernetes.io/name: {{ include "restop.name" . }}
app.kubernetes.io/component: exporter
{{- end -}}

{{- define "restop.labels" -}}
{{ include "restop.selectorLabels" . }}
app.kubernetes.io/part-of: restop
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "restop.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "restop.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "restop.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The job the alerting rules select. */}}
{{- define "restop.job" -}}
{{- default (include "restop.name" .) .Values.prometheusRule.job -}}
{{- end -}}

{{/* The Secret holding the web config (--web.config.file), or "" for none. */}}
{{- define "restop.webConfigSecret" -}}
{{- if .Values.webConfig.existingSecret -}}
{{- .Values.webConfig.existingSecret -}}
{{- else if .Values.webConfig.config -}}
{{- include "restop.fullname" . }}-web-config
{{- end -}}
{{- end }}
