package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/surveys-dev/surveys/internal/api"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Handler returns every route of the application, behind the cross-origin
// protection.
func (s *Server) Handler() http.Handler {
	// Refuse cross-site state-changing requests (browsers send
	// Sec-Fetch-Site / Origin); same-origin forms and API clients pass.
	// Its refusals carry the security headers too.
	// A tenant's verified custom domain gets its public pages alone
	// (settings_domains.go). A SAML identity provider posts its Response from its own site: the
	// ACS is authenticated by the Response's signature and the browser's
	// sealed sign-in cookie instead (account_saml.go).
	cop := http.NewCrossOriginProtection()
	cop.AddInsecureBypassPattern("POST /login/{tenant}/saml/acs")
	return securityHeaders(cop.Handler(s.byHost(s.Routes(), s.HostRoutes())))
}

// Routes returns the router (for Handler, and for tests that walk it).
func (s *Server) Routes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.http.middleware) // first: it reads the matched route pattern
	r.Use(middleware.Recoverer)
	r.Use(securityHeaders)

	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.handle(s.readyz))
	if s.metrics != nil {
		r.Handle("/metrics", s.metrics)
	}
	r.Handle("/static/*", s.views.assets())
	// The front proxy asks before it gets a certificate for a name
	// (Caddy's on_demand_tls): yes for verified custom domains alone.
	r.Get("/tls/ask", s.handle(s.tlsAsk))

	// The public site.
	r.Group(func(r chi.Router) {
		r.Use(middleware.GetHead)
		r.Get("/", s.handle(s.home))
		r.Get("/survey/{tenant}/{slug}", s.handle(s.showSurvey))
		r.Get("/survey/{tenant}/{slug}/thankyou", s.handle(s.thankYou))
		r.Get("/survey/{tenant}/{slug}/results", s.handle(s.publicResults))
		r.Get("/logos/{name}", s.handle(s.logo))
		// A theme's stylesheet, spelled in its URL (designer_theme.go): no storage
		// read; its preview's; the font it may serve.
		r.Get("/theme/{spec}", s.handle(s.themeCSS))
		r.Get("/theme/preview/{spec}", s.handle(s.themePreviewCSS))
		r.Get("/theme/fonts/{name}", s.handle(s.themeFont))
	})
	r.With(s.limit.answers).Post("/survey/{tenant}/{slug}", s.handle(s.submitSurvey))
	// A respondent's copy of their answers by e-mail (respond_copy.go): its form
	// carries a sealed token naming the answer.
	r.With(s.limit.answers).Post("/survey/{tenant}/{slug}/copy", s.handle(s.sendCopy))
	// A respondent's receipt (respond_receipt.go): the form for its code, and the
	// answer it names, seen and deleted; each try of a code is limited.
	r.With(middleware.GetHead).Get("/survey/{tenant}/{slug}/receipt", s.handle(s.showReceiptForm))
	r.With(s.limit.receipts).Post("/survey/{tenant}/{slug}/receipt", s.handle(s.showReceipt))
	r.With(s.limit.receipts).Post("/survey/{tenant}/{slug}/receipt/delete", s.handle(s.deleteReceipt))
	// Where the answers so far lead (path.js): nothing stored.
	r.With(s.limit.probes).Post("/survey/{tenant}/{slug}/path", s.handle(s.pathProbe))
	// A link back to a saved page costs a storage read: limited as answers.
	r.With(s.limit.answers).Get("/survey/{tenant}/{slug}/resume/{key}", s.handle(s.resumeSurvey))
	// A survey's preview: a signed link, no sign-in, nothing stored; its
	// pages cost what a respondent's do, and are limited as answers.
	r.With(s.limit.answers, middleware.GetHead).Get("/preview/{link}", s.handle(s.showPreview))
	r.With(s.limit.answers).Post("/preview/{link}", s.handle(s.stepPreview))
	r.With(s.limit.probes).Post("/preview/{link}/path", s.handle(s.previewPath))
	// An unsubscribe link of a notification e-mail: signed, no sign-in.
	r.With(middleware.GetHead).Get("/unsubscribe/{token}", s.handle(s.showUnsubscribe))
	r.With(s.limit.signIns).Post("/unsubscribe/{token}", s.handle(s.unsubscribe))

	// Subscribers: sign in, then their tenant's pages.
	r.Get("/onboarding", s.handle(s.showOnboarding))
	r.With(s.limit.onboardings).Post("/onboarding", s.handle(s.onboard))
	r.Get("/login", s.handle(s.showLogin))
	r.With(s.limit.signIns).Post("/login", s.handle(s.login))
	r.Post("/logout", s.handle(s.logout))
	r.With(s.limit.signIns).Post("/login/pick", s.handle(s.pickTenant))
	// The second step of a password sign-in: the code of an authenticator.
	r.With(s.limit.signIns).Post("/login/code", s.handle(s.secondFactor))
	// The challenge of a passkey for that step (JSON, for passkeys.js).
	r.With(s.limit.signIns).Post("/login/code/passkey", s.handle(s.beginPasskeySignIn))
	r.Get("/login/forgot", s.handle(s.showForgot))
	r.With(s.limit.signIns).Post("/login/forgot", s.handle(s.forgot))
	r.Get("/login/reset/{token}", s.handle(s.showReset))
	r.With(s.limit.signIns).Post("/login/reset/{token}", s.handle(s.reset))
	r.Get("/login/oidc", s.handle(s.startOIDCFor))
	r.With(s.limit.signIns).Get("/login/{tenant}/oidc", s.handle(s.startOIDC))
	r.Get("/login/{tenant}/oidc/callback", s.handle(s.oidcCallback))
	// SAML 2.0 (account_saml.go): the service provider's metadata, the start of a
	// sign-in, and the assertion consumer service the provider posts to.
	r.With(s.limit.signIns).Get("/login/{tenant}/saml/metadata", s.handle(s.samlMetadata))
	r.With(s.limit.signIns).Get("/login/{tenant}/saml", s.handle(s.startSAML))
	r.With(s.limit.signIns).Post("/login/{tenant}/saml/acs", s.handle(s.samlACS))
	// An invitation: its page, and the account it makes.
	r.With(s.limit.signIns).Get("/invite/{token}", s.handle(s.showInvite))
	r.With(s.limit.signIns).Get("/verify/{token}", s.handle(s.verifyAddress))
	r.With(s.limit.signIns).Post("/invite/{token}", s.handle(s.acceptInvite))
	// The tenant's pages: a member of the URL's tenant whose role may do
	// what the route does (survey.Role.May).
	r.Group(func(r chi.Router) {
		r.Use(s.requireTenantUser)
		r.Group(func(r chi.Router) {
			r.Use(s.requireRole(survey.ReadResults))
			r.Get("/{tenant}/welcome", s.handle(s.welcome))
			r.Get("/{tenant}/surveys", s.handle(s.dashboard))
			r.Get("/{tenant}/surveys/{slug}/analyze", s.handle(s.analyze))
			r.Get("/{tenant}/surveys/{slug}/analyze/live", s.handle(s.analyzeLive))
			r.Get("/{tenant}/surveys/{slug}/analyze/{question}", s.handle(s.written))
			r.Get("/{tenant}/surveys/{slug}/analyze/{question}/chart.svg", s.handle(s.chartSVG))
			r.Get("/{tenant}/surveys/{slug}/analyze/{question}/chart.png", s.handle(s.chartPNG))
			r.Get("/{tenant}/surveys/{slug}/crosstab", s.handle(s.crosstab))
			r.Get("/{tenant}/surveys/{slug}/crosstab.csv", s.handle(s.crosstabCSV))
			r.Get("/{tenant}/surveys/{slug}/report.pdf", s.handle(s.report))
			r.Get("/{tenant}/surveys/{slug}/share", s.handle(s.share))
			r.Get("/{tenant}/surveys/{slug}/preview", s.handle(s.preview))
			r.Get("/{tenant}/surveys/{slug}/qr.{format}", s.handle(s.qrCode))
			r.Get("/{tenant}/surveys/{slug}/answers", s.handle(s.browse))
			r.Get("/{tenant}/surveys/{slug}/answers/table", s.handle(s.answerTable))
			r.Get("/{tenant}/surveys/{slug}/compare", s.handle(s.compare))
			r.Get("/{tenant}/surveys/{slug}/answers/{answer}", s.handle(s.showAnswer))
			r.Get("/{tenant}/surveys/{slug}/answers/{answer}/files/{question}/{n}", s.handle(s.downloadFile))
			r.Get("/{tenant}/surveys/{slug}/files.zip", s.handle(s.filesZip))
			r.Get("/{tenant}/surveys/{slug}/export.{format}", s.handle(s.export))
			r.Get("/{tenant}/surveys/{slug}/definition.json", s.handle(s.definitionFile))
			r.Get("/{tenant}/account/password", s.handle(s.showPassword))
			r.Post("/{tenant}/account/password", s.handle(s.changePassword))
			r.Post("/{tenant}/account/alerts", s.handle(s.saveAlerts))
			r.Post("/{tenant}/account/verify", s.handle(s.resendVerify))
			r.Get("/{tenant}/account/two-factor", s.handle(s.showTwoFactor))
			r.Post("/{tenant}/account/two-factor", s.handle(s.enableTwoFactor))
			r.Post("/{tenant}/account/two-factor/disable", s.handle(s.disableTwoFactor))
			r.Post("/{tenant}/account/passkeys/begin", s.handle(s.beginPasskeyRegistration))
			r.Post("/{tenant}/account/passkeys", s.handle(s.addPasskey))
			r.Get("/{tenant}/account/passkeys/remove", s.handle(s.confirmRemovePasskey))
			r.Post("/{tenant}/account/passkeys/remove", s.handle(s.removePasskey))
			r.Get("/{tenant}/account/sessions", s.handle(s.showSessions))
			r.Post("/{tenant}/account/sessions/end", s.handle(s.endSession))
			r.Post("/{tenant}/account/sessions/end-others", s.handle(s.endOtherSessions))
			// Anyone who may read the results may ask to be told of them.
			r.Get("/{tenant}/surveys/{slug}/notifications", s.handle(s.showNotifications))
			r.Post("/{tenant}/surveys/{slug}/notifications", s.handle(s.saveNotifications))
		})
		r.Group(func(r chi.Router) {
			r.Use(s.requireRole(survey.EditSurveys))
			r.Get("/{tenant}/surveys/new", s.handle(s.newSurvey))
			r.Post("/{tenant}/surveys/new", s.handle(s.saveSurvey))
			r.Get("/{tenant}/surveys/import", s.handle(s.showImport))
			r.Post("/{tenant}/surveys/import", s.handle(s.importSurvey))
			r.Get("/{tenant}/surveys/{slug}/edit", s.handle(s.editSurvey))
			r.Post("/{tenant}/surveys/{slug}/edit", s.handle(s.saveSurvey))
			r.Get("/{tenant}/surveys/{slug}/delete-forever", s.handle(s.confirmDelete))
			r.Get("/{tenant}/surveys/{slug}/links", s.handle(s.showLinks))
			r.Post("/{tenant}/surveys/{slug}/links", s.handle(s.createLinks))
			r.Get("/{tenant}/surveys/{slug}/links.csv", s.handle(s.exportLinks))
			// Campaigns (share_campaigns.go) and the contact lists they mail
			// (share_contacts.go).
			r.Get("/{tenant}/surveys/{slug}/campaigns", s.handle(s.showCampaigns))
			r.Post("/{tenant}/surveys/{slug}/campaigns", s.handle(s.createCampaign))
			r.Get("/{tenant}/surveys/{slug}/campaigns/{id}", s.handle(s.showCampaign))
			r.Post("/{tenant}/surveys/{slug}/campaigns/{id}/remind", s.handle(s.remindNow))
			r.Get("/{tenant}/contacts", s.handle(s.showContacts))
			r.Post("/{tenant}/contacts", s.handle(s.createContactList))
			r.Get("/{tenant}/contacts/{list}", s.handle(s.showContactList))
			r.Post("/{tenant}/contacts/{list}", s.handle(s.addContact))
			r.Post("/{tenant}/contacts/{list}/import", s.handle(s.importContacts))
			r.Get("/{tenant}/contacts/{list}/delete", s.handle(s.confirmDeleteContactList))
			r.Post("/{tenant}/contacts/{list}/delete", s.handle(s.deleteContactList))
			r.Get("/{tenant}/contacts/{list}/{contact}", s.handle(s.showContact))
			r.Post("/{tenant}/contacts/{list}/{contact}", s.handle(s.saveContact))
			r.Post("/{tenant}/contacts/{list}/{contact}/remove", s.handle(s.removeContact))
			r.Post("/{tenant}/surveys/{slug}/segments", s.handle(s.saveSegment))
			r.Post("/{tenant}/surveys/{slug}/segments/{id}/delete", s.handle(s.deleteSegment))
			r.Get("/{tenant}/surveys/{slug}/translations", s.handle(s.showTranslations))
			r.Post("/{tenant}/surveys/{slug}/translations", s.handle(s.saveTranslations))
			r.Get("/{tenant}/surveys/{slug}/theme", s.handle(s.showSurveyTheme))
			r.Post("/{tenant}/surveys/{slug}/theme", s.handle(s.saveSurveyTheme))
			// publish, close, delete (to the trash), restore,
			// delete-forever, challenge-on/off, duplicate (or copy).
			r.Post("/{tenant}/surveys/{slug}/{action}", s.handle(s.surveyAction))
		})
		r.With(s.requireRole(survey.DeleteAnswers)).Get("/{tenant}/surveys/{slug}/answers/{answer}/delete", s.handle(s.confirmDeleteAnswer))
		r.With(s.requireRole(survey.DeleteAnswers)).Post("/{tenant}/surveys/{slug}/answers/{answer}/delete", s.handle(s.deleteAnswer))
		// A survey's retention rule and receipts: who may delete answers.
		r.With(s.requireRole(survey.DeleteAnswers)).Get("/{tenant}/surveys/{slug}/privacy", s.handle(s.showPrivacy))
		r.With(s.requireRole(survey.DeleteAnswers)).Post("/{tenant}/surveys/{slug}/privacy", s.handle(s.savePrivacy))
		r.With(s.requireRole(survey.TransferAnswers)).Post("/{tenant}/surveys/{slug}/transfer", s.handle(s.requestTransfer))
		r.Group(func(r chi.Router) {
			r.Use(s.requireRole(survey.ManageTenant))
			r.Get("/{tenant}/settings", s.handle(s.showSettings))
			r.Post("/{tenant}/settings", s.handle(s.saveSettings))
			r.Get("/{tenant}/settings/theme", s.handle(s.showTenantTheme))
			r.Post("/{tenant}/settings/theme", s.handle(s.saveTenantTheme))
			r.Get("/{tenant}/settings/identity", s.handle(s.showIdentity))
			r.Post("/{tenant}/settings/identity", s.handle(s.saveIdentity))
			r.Get("/{tenant}/settings/saml", s.handle(s.showSAMLSettings))
			r.Post("/{tenant}/settings/saml", s.handle(s.saveSAMLSettings))
			r.Get("/{tenant}/settings/database", s.handle(s.showDatabase))
			r.Post("/{tenant}/settings/database", s.handle(s.saveDatabase))
			r.Get("/{tenant}/settings/domain", s.handle(s.showDomain))
			r.Post("/{tenant}/settings/domain", s.handle(s.saveDomain))
			r.Get("/{tenant}/settings/domain/remove", s.handle(s.confirmRemoveDomain))
			r.Get("/{tenant}/settings/webhooks", s.handle(s.showWebhooks))
			r.Post("/{tenant}/settings/webhooks", s.handle(s.addWebhook))
			r.Get("/{tenant}/settings/webhooks/{id}/delete", s.handle(s.confirmDeleteWebhook))
			// The audit log: read only.
			r.Get("/{tenant}/settings/audit", s.handle(s.showAudit))
			r.Get("/{tenant}/settings/audit.csv", s.handle(s.auditCSV))
			// test, enable, delete
			r.Post("/{tenant}/settings/webhooks/{id}/{action}", s.handle(s.webhookAction))
		})
		r.Group(func(r chi.Router) {
			r.Use(s.requireRole(survey.ManageMembers))
			r.Get("/{tenant}/settings/members", s.handle(s.showMembers))
			r.Post("/{tenant}/settings/members", s.handle(s.invite))
			r.Post("/{tenant}/settings/members/role", s.handle(s.changeRole))
			r.Get("/{tenant}/settings/members/remove", s.handle(s.confirmRemoveMember))
			r.Post("/{tenant}/settings/members/remove", s.handle(s.removeMember))
			r.Get("/{tenant}/settings/members/two-factor", s.handle(s.confirmResetTwoFactor))
			r.Post("/{tenant}/settings/members/two-factor", s.handle(s.resetTwoFactor))
			r.Get("/{tenant}/settings/members/sessions", s.handle(s.confirmEndMemberSessions))
			r.Post("/{tenant}/settings/members/sessions", s.handle(s.endMemberSessions))
			r.Post("/{tenant}/settings/invitations/{id}/revoke", s.handle(s.revokeInvitation))
			// SCIM provisioning: its tokens, and the groups of the roles.
			if s.scimDir != nil && s.scimTokens != nil {
				r.Get("/{tenant}/settings/scim", s.handle(s.showSCIM))
				r.Post("/{tenant}/settings/scim", s.handle(s.createSCIMToken))
				r.Post("/{tenant}/settings/scim/groups", s.handle(s.saveSCIMGroups))
				r.Post("/{tenant}/settings/scim/tokens/{id}/revoke", s.handle(s.revokeSCIMToken))
			}
		})
		r.Group(func(r chi.Router) {
			r.Use(s.requireRole(survey.ManageTokens))
			r.Get("/{tenant}/settings/tokens", s.handle(s.showTokens))
			r.Post("/{tenant}/settings/tokens", s.handle(s.createToken))
			r.Post("/{tenant}/settings/tokens/{id}/revoke", s.handle(s.revokeToken))
		})
	})

	// The JSON API (package api): the tenant is the bearer token's. Its
	// description needs no token.
	r.With(middleware.GetHead).Get("/api/v1/openapi.json", api.OpenAPI)
	r.Mount("/api/v1", api.New(api.Deps{Logger: s.log, Surveys: s.surveys, Editor: s.editor, Summaries: s.summaries, Tokens: s.tokens, Webhooks: s.webhooks, Pictures: s.logos, Segments: s.segments, SurveyBase: s.apiSurveyBase, TenantTheme: s.apiTenantTheme, SetTenantTheme: s.apiSetTenantTheme,
		TenantUsable: s.tenantUsable, Export: s.exportTo, Report: s.reportTo, AnswersPicked: s.answersPicked, Crosstab: s.crosstabOf, WebhookURLProblem: s.webhookURLProblem, Audit: s.auditList, Note: s.auditAs,
		Contacts: s.apiContacts(), Campaigns: s.apiCampaigns(), CampaignReport: s.campaignReportAPI}))

	// SCIM 2.0 provisioning (package scim): the tenant is the SCIM
	// token's.
	if s.scimDir != nil && s.scimTokens != nil {
		r.Mount(scimPath, s.scimHandler())
	}

	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.serveError(w, r, notFound("Page not found."))
	})
	return r
}
