{{/* Names: <release>-benchboard unless the release name already says benchboard. */}}
{{- define "benchboard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "benchboard.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "benchboard.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "benchboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: (dict "ctx" $ "component" "web"). */}}
{{- define "benchboard.selector" -}}
app.kubernetes.io/name: {{ include "benchboard.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "benchboard.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "benchboard.agentImage" -}}
{{- printf "%s:%s" .Values.agents.image.repository (default .Chart.AppVersion .Values.agents.image.tag) -}}
{{- end -}}

{{/* The Secret with the connection URLs and the secret key. */}}
{{- define "benchboard.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else -}}
{{- printf "%s-env" (include "benchboard.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "benchboard.agentSecretName" -}}
{{- if .Values.agents.token.existingSecret -}}
{{- .Values.agents.token.existingSecret -}}
{{- else -}}
{{- printf "%s-agent-token" (include "benchboard.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "benchboard.webName" -}}
{{- printf "%s-web" (include "benchboard.fullname" .) -}}
{{- end -}}

{{/* The web app inside the cluster; always with its port, so the Host header names it exactly. */}}
{{- define "benchboard.internalHost" -}}
{{- printf "%s.%s.svc.cluster.local:%d" (include "benchboard.webName" .) .Release.Namespace (int .Values.web.port) -}}
{{- end -}}

{{- define "benchboard.internalUrl" -}}
{{- printf "http://%s" (include "benchboard.internalHost" .) -}}
{{- end -}}

{{- define "benchboard.publicUrl" -}}
{{- $url := required "publicUrl is required: the URL people open the web app at, e.g. https://bench.example.com" .Values.publicUrl -}}
{{- if not (regexMatch "^https?://[^/?#]+/?$" $url) -}}
{{- fail (printf "publicUrl: %q is not an http(s) URL of a host (no path), e.g. https://bench.example.com" $url) -}}
{{- end -}}
{{- trimSuffix "/" $url -}}
{{- end -}}

{{/* A pool's resource-name suffix: its label with . and _ as -. */}}
{{- define "benchboard.poolName" -}}
{{- .label | replace "." "-" | replace "_" "-" | trunc 20 | trimSuffix "-" -}}
{{- end -}}

{{/* Environment of the web app, the workers and the migration job (besides the Secret). */}}
{{- define "benchboard.env" -}}
- name: BENCHBOARD_PUBLIC_URL
  value: {{ printf "%s,%s" (include "benchboard.publicUrl" .) (include "benchboard.internalUrl" .) | quote }}
- name: BENCHBOARD_QUEUE_PREFIX
  value: {{ .Values.config.queuePrefix | quote }}
- name: BENCHBOARD_RUN_STALE_AFTER_MS
  value: {{ .Values.config.runStaleAfterMs | quote }}
- name: BENCHBOARD_QUEUE_GIVE_UP_S
  value: {{ .Values.config.queueGiveUpS | quote }}
{{- with .Values.config.trustedProxies }}
- name: BENCHBOARD_TRUSTED_PROXIES
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.allowedTargets }}
- name: BENCHBOARD_ALLOWED_TARGETS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.tenantTargets }}
- name: BENCHBOARD_TENANT_TARGETS
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.signup }}
- name: BENCHBOARD_SIGNUP
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.mailFrom }}
- name: BENCHBOARD_MAIL_FROM
  value: {{ . | quote }}
{{- end }}
{{- with .Values.config.retainDetailDays }}
- name: BENCHBOARD_RETAIN_DETAIL_DAYS
  value: {{ . | quote }}
{{- end }}
# Without SMTP, account mail goes to this file (the root file system is read-only).
- name: BENCHBOARD_MAIL_LOG
  value: /tmp/benchboard/mail.log
{{- range $name, $value := .Values.config.extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}
