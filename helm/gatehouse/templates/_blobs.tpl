{{/*
Blob storage (artifacts, evidence exports, sandbox outputs). Every api and
worker pod must see the same store: S3-compatible by default, or a directory
on one ReadWriteMany PersistentVolumeClaim mounted into every pod.
*/}}

{{/* Where the filesystem store lives when it is on a claim. */}}
{{- define "gatehouse.blobs.mountPath" -}}
/var/lib/gatehouse-blobs
{{- end -}}

{{/* The claim holding the filesystem store; empty when there is none. */}}
{{- define "gatehouse.blobs.claim" -}}
{{- $fs := .Values.blobs.filesystem -}}
{{- if eq .Values.blobs.backend "filesystem" -}}
{{- if $fs.existingClaim -}}
{{- $fs.existingClaim -}}
{{- else if $fs.persistence.enabled -}}
{{- include "gatehouse.fullname" . }}-blobs
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding static S3 keys; empty: the default credential chain signs. */}}
{{- define "gatehouse.blobs.keysSecret" -}}
{{- $c := .Values.blobs.s3.credentials -}}
{{- if eq .Values.blobs.backend "s3" -}}
{{- if $c.existingSecret -}}
{{- $c.existingSecret -}}
{{- else if $c.accessKeyId -}}
{{- include "gatehouse.fullname" . -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Refuses blob settings that cannot work. */}}
{{- define "gatehouse.blobs.validate" -}}
{{- $b := .Values.blobs -}}
{{- if eq $b.backend "filesystem" -}}
{{- include "gatehouse.blobs.validateFilesystem" . -}}
{{- else -}}
{{- $c := $b.s3.credentials -}}
{{- if and $c.existingSecret (or $c.accessKeyId $c.secretAccessKey) -}}
{{- fail "blobs.s3.credentials: set existingSecret or accessKeyId and secretAccessKey, not both" -}}
{{- end -}}
{{- if ne (empty $c.accessKeyId) (empty $c.secretAccessKey) -}}
{{- fail "blobs.s3.credentials: set both accessKeyId and secretAccessKey, or neither (then the AWS default credential chain signs: IRSA, EKS Pod Identity, instance role)" -}}
{{- end -}}
{{- if and $c.accessKeyId .Values.secrets.existingSecret -}}
{{- fail "secrets.existingSecret is set, so the chart creates no Secret: put the S3 keys in a Secret you manage (blobs.s3.credentials.existingSecret)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
A filesystem store on each pod's own volume splits as soon as there is a
second pod: more api replicas, the api autoscaler, or any worker (workers
read blobs too). Without a shared claim only one api pod and no worker pod
may render.
*/}}
{{- define "gatehouse.blobs.validateFilesystem" -}}
{{- if not (include "gatehouse.blobs.claim" .) -}}
{{- $why := list -}}
{{- if and (not .Values.api.autoscaling.enabled) (gt (int .Values.api.replicas) 1) -}}
{{- $why = append $why (printf "api.replicas=%d" (int .Values.api.replicas)) -}}
{{- end -}}
{{- if .Values.api.autoscaling.enabled -}}
{{- $why = append $why "api.autoscaling.enabled" -}}
{{- end -}}
{{- if or .Values.worker.autoscaling.enabled (gt (int .Values.worker.replicas) 0) -}}
{{- $why = append $why "worker pods, which read blobs too" -}}
{{- end -}}
{{- with $why -}}
{{- fail (printf "blobs.backend=filesystem without a shared volume gives every pod its own blob store, and this release has more than one pod (%s): set blobs.filesystem.existingClaim to a ReadWriteMany PersistentVolumeClaim, or blobs.filesystem.persistence.enabled=true (the chart creates a ReadWriteMany claim), or use blobs.backend=s3" (join "; " .)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* ConfigMap entries of the blob store. */}}
{{- define "gatehouse.blobs.config" -}}
{{- if eq .Values.blobs.backend "s3" -}}
{{- $s3 := .Values.blobs.s3 -}}
GATEHOUSE_BLOB_S3_BUCKET: {{ $s3.bucket | quote }}
GATEHOUSE_BLOB_S3_REGION: {{ $s3.region | quote }}
GATEHOUSE_BLOB_S3_PATH_STYLE: {{ $s3.pathStyle | quote }}
{{- with $s3.endpoint }}
GATEHOUSE_BLOB_S3_ENDPOINT: {{ . | quote }}
{{- end }}
{{- else if include "gatehouse.blobs.claim" . -}}
GATEHOUSE_BLOB_DIR: {{ include "gatehouse.blobs.mountPath" . }}
{{- end -}}
{{- end -}}

{{/* Static S3 keys as Secret references; nothing without static keys. */}}
{{- define "gatehouse.blobs.keyEnv" -}}
{{- with include "gatehouse.blobs.keysSecret" . }}
- name: GATEHOUSE_BLOB_S3_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.blobs.s3.credentials.accessKeyIdKey }}
- name: GATEHOUSE_BLOB_S3_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.blobs.s3.credentials.secretAccessKeyKey }}
{{- end }}
{{- end -}}

{{/* The shared claim's mount and volume, for api and worker. */}}
{{- define "gatehouse.blobs.volumeMount" -}}
{{- if include "gatehouse.blobs.claim" . }}
- name: blobs
  mountPath: {{ include "gatehouse.blobs.mountPath" . }}
{{- end }}
{{- end -}}

{{- define "gatehouse.blobs.volume" -}}
{{- with include "gatehouse.blobs.claim" . }}
- name: blobs
  persistentVolumeClaim:
    claimName: {{ . }}
{{- end }}
{{- end -}}
