// Package web is the HTTP side: the chi router, handlers, middleware and
// rendering. Handlers are thin: they decode, call a store, and render.
//
// The package's files are grouped in rooms by the prefix of their names,
// so that a reader finds a feature by listing the directory:
//
//   - server.go, routes.go, render.go, errors.go, headers.go, health.go,
//     metrics*.go, ratelimit.go, mail.go, plural.go: the shared server:
//     its dependencies (Deps), every route, rendering, the mapping of
//     errors to statuses, security headers, limits and metrics.
//   - respond*.go: the respondent's pages: the survey form and its pages,
//     logic paths, tokens, uploads, quotas, languages, the respondent's
//     copy and receipt, public results, embedding and view counts.
//   - designer*.go: the designer and what edits a survey: questions,
//     sections, logic, scoring, quotas, pictures, translations, themes,
//     previews and definitions.
//   - results*.go: reading answers: the analysis page and its charts, the
//     answers and their table, filters and saved segments, comparisons,
//     cross-tabs, exports (CSV, JSON, XLSX, SPSS, R), the PDF report and
//     deleting an answer.
//   - share*.go: reaching respondents: the share page, personal links,
//     contact lists and campaigns, a survey's privacy (retention, receipts).
//   - account*.go: people: signing in (password, e-mail link, two steps,
//     passkeys, OpenID Connect, SAML), sessions and devices, members and
//     roles, notifications, on-boarding.
//   - settings*.go: a tenant's settings: identity providers, SAML and SCIM,
//     API tokens, webhooks, its database, custom domain and audit log.
//   - home*.go: the public home page, the dashboard, a survey's tabs and
//     the trash.
//
// The JSON API is package api (internal/api) and SCIM package scim; they
// are mounted by Routes.
package web
