{{/* Chart name, truncated to the 63 characters Kubernetes names allow. */}}
{{- define "gatehouse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name used for every object. */}}
{{- define "gatehouse.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "gatehouse.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "gatehouse.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels on every object. */}}
{{- define "gatehouse.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "gatehouse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gatehouse
{{- end -}}

{{/* Selector labels of one component; call with (dict "root" $ "component" "api"). */}}
{{- define "gatehouse.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gatehouse.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "gatehouse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gatehouse.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding the database URL and the bootstrap token. */}}
{{- define "gatehouse.secretName" -}}
{{- default (include "gatehouse.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "gatehouse.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Where the Temporal API key comes from; empty when there is none. */}}
{{- define "gatehouse.temporalAPIKeySecret" -}}
{{- if .Values.temporal.apiKey.existingSecret -}}
{{- .Values.temporal.apiKey.existingSecret -}}
{{- else if .Values.temporal.apiKey.value -}}
{{- include "gatehouse.fullname" . -}}
{{- end -}}
{{- end -}}

{{/* Secret environment shared by api, worker and migration: references only. */}}
{{- define "gatehouse.secretEnv" -}}
- name: GATEHOUSE_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "gatehouse.secretName" . }}
      key: {{ .Values.secrets.databaseUrlKey }}
{{- with include "gatehouse.temporalAPIKeySecret" . }}
- name: GATEHOUSE_TEMPORAL_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.temporal.apiKey.key }}
{{- end }}
{{- include "gatehouse.blobs.keyEnv" . }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pod-level fields shared by every pod of the chart. */}}
{{- define "gatehouse.podCommon" -}}
serviceAccountName: {{ include "gatehouse.serviceAccountName" . }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Writable mounts (the root filesystem is read-only) and Temporal mTLS files. */}}
{{- define "gatehouse.volumeMounts" -}}
- name: data
  mountPath: /var/lib/gatehouse
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  mountPath: /etc/gatehouse/temporal-tls
  readOnly: true
{{- end }}
{{- include "gatehouse.blobs.volumeMount" . }}
{{- end -}}

{{- define "gatehouse.volumes" -}}
- name: data
  emptyDir:
    sizeLimit: {{ .Values.dataVolume.sizeLimit }}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  secret:
    secretName: {{ required "temporal.tls.existingSecret is required when temporal.tls.enabled" .Values.temporal.tls.existingSecret }}
{{- end }}
{{- include "gatehouse.blobs.volume" . }}
{{- end -}}

{{/* Namespace of kubernetes sandbox Pods: configured, else the release's. */}}
{{- define "gatehouse.sandboxNamespace" -}}
{{- .Values.sandboxes.kubernetes.namespace | default .Release.Namespace -}}
{{- end -}}

{{/*
GOMAXPROCS for a Gatehouse container: the whole cores of its CPU request
(the downward API rounds a fractional request up, so 100m gives 1), so Go
runs as many threads of Go code as the pod is entitled to rather than one
per core of the node. Without a request it is left unset (Go's default).
With a CPU limit it is left unset too: Go reads the container's CPU limit
itself and sets GOMAXPROCS from it. Call with (dict "container" name
"resources" .Values.<component>.resources).
*/}}
{{- define "gatehouse.goMaxProcs" -}}
{{- $requests := .resources.requests | default dict -}}
{{- $limits := .resources.limits | default dict -}}
{{- if and (hasKey $requests "cpu") (not (hasKey $limits "cpu")) -}}
- name: GOMAXPROCS
  valueFrom:
    resourceFieldRef:
      containerName: {{ .container }}
      resource: requests.cpu
      divisor: "1"
{{- end }}
{{- end -}}
