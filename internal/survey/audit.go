package survey

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// An AuditEvent is one thing a tenant's members (or its API tokens, or
// the system) did to the tenant: who, when, from where, what, to what.
// A tenant's admins read them on its audit page and through the API; the
// respondents' answers are not audited one by one.
type AuditEvent struct {
	Tenant string
	At     time.Time
	// Actor is a member's e-mail, "token:<name>" for an API token, or
	// "system".
	Actor string
	// Action is one of AuditActions.
	Action string
	// Target is what was acted on: a survey's slug, a member's e-mail, a
	// token's id … ("" when nothing in particular).
	Target string
	// IP is the client's address as the server saw it ("" for the system).
	IP string
	// Detail is a short text (the new role, the export's format …).
	Detail string
}

// The actions an AuditEvent names.
const (
	AuditSignIn          = "signin"
	AuditSignInFailed    = "signin.failed"
	AuditMemberInvited   = "member.invited"
	AuditMemberRole      = "member.role"
	AuditMemberRemoved   = "member.removed"
	AuditInviteRevoked   = "invitation.revoked"
	AuditTokenCreated    = "token.created"
	AuditTokenRevoked    = "token.revoked"
	AuditSurveyCreated   = "survey.created"
	AuditSurveyPublished = "survey.published"
	AuditSurveyClosed    = "survey.closed"
	AuditSurveyEdited    = "survey.edited"
	AuditSurveyTrashed   = "survey.trashed"
	AuditSurveyRestored  = "survey.restored"
	AuditSurveyDeleted   = "survey.deleted"
	AuditAnswerDeleted   = "answer.deleted"
	// AuditAnswersExpired: the retention pass deleted a survey's answers
	// past its retention rule (Detail says how many); AuditAnswerErased:
	// a respondent deleted their own answer with its receipt.
	AuditAnswersExpired = "answers.expired"
	AuditAnswerErased   = "answer.erased"
	AuditExport         = "export"
	AuditSettings       = "settings.changed"
	AuditDatabase       = "database.changed"
	AuditWebhookAdded   = "webhook.added"
	AuditWebhookDeleted = "webhook.deleted"
	AuditIdentity       = "identity.changed"
	AuditTwoFactorReset = "twofactor.reset"
	AuditDomain         = "domain.changed"
	// What the tenant's identity provider did through SCIM (actor
	// AuditSCIM), and the admins' SCIM settings.
	AuditSCIMUserCreated     = "scim.user.created"
	AuditSCIMUserUpdated     = "scim.user.updated"
	AuditSCIMUserDeactivated = "scim.user.deactivated"
	AuditSCIMUserReactivated = "scim.user.reactivated"
	AuditSCIMUserDeleted     = "scim.user.deleted"
	AuditSCIMGroupCreated    = "scim.group.created"
	AuditSCIMGroupUpdated    = "scim.group.updated"
	AuditSCIMGroupDeleted    = "scim.group.deleted"
	AuditSCIMTokenCreated    = "scim.token.created"
	AuditSCIMTokenRevoked    = "scim.token.revoked"
	AuditSCIMRoleGroups      = "scim.rolegroups.changed"
	AuditTwoFactorOn         = "twofactor.on"
	AuditTwoFactorOff        = "twofactor.off"
	AuditPasskeyAdded        = "passkey.added"
	AuditPasskeyRemoved      = "passkey.removed"
	AuditSessionEnded        = "session.ended"
	// A member's own password changed on the account page, or set
	// through a mailed reset link (or by the operator's CLI); a member
	// signed out.
	AuditPasswordChanged = "password.changed"
	AuditPasswordReset   = "password.reset"
	AuditSignOut         = "signout"
	// A survey's saved segments, personal links and translations.
	AuditSegmentCreated = "segment.created"
	AuditSegmentDeleted = "segment.deleted"
	AuditLinksCreated   = "links.created"
	AuditTranslations   = "translations.saved"
	// A webhook endpoint sent a test event, given a new secret, enabled
	// again or disabled.
	AuditWebhookTested   = "webhook.tested"
	AuditWebhookRotated  = "webhook.secret.rotated"
	AuditWebhookEnabled  = "webhook.enabled"
	AuditWebhookDisabled = "webhook.disabled"
	// What the operator's CLI did to a tenant (actor AuditOperator):
	// accounts added, tokens made, the tenant suspended, its plan …
	AuditTenantSuspended = "tenant.suspended"
	AuditTenantResumed   = "tenant.resumed"
	AuditTenantPlan      = "tenant.plan"
	AuditMemberAdded     = "member.added"
	AuditMemberActivated = "member.activated"
)

// AuditOperator is the actor of what the operator's CLI (surveys user
// …, surveys tenant …, surveys token …) did to a tenant.
const AuditOperator = "operator"

// AuditSCIM is the actor of what the tenant's identity provider did
// through SCIM.
const AuditSCIM = "SCIM"

// AuditActions is the closed set of actions, in the order the audit
// page's filter offers them.
var AuditActions = []string{
	AuditSignIn, AuditSignInFailed,
	AuditMemberInvited, AuditMemberRole, AuditMemberRemoved, AuditInviteRevoked,
	AuditTokenCreated, AuditTokenRevoked,
	AuditSurveyCreated, AuditSurveyPublished, AuditSurveyClosed, AuditSurveyEdited,
	AuditSurveyTrashed, AuditSurveyRestored, AuditSurveyDeleted,
	AuditAnswerDeleted, AuditAnswersExpired, AuditAnswerErased, AuditExport,
	AuditSettings, AuditDatabase, AuditWebhookAdded, AuditWebhookDeleted, AuditIdentity, AuditTwoFactorReset,
	AuditDomain,
	AuditSCIMUserCreated, AuditSCIMUserUpdated, AuditSCIMUserDeactivated, AuditSCIMUserReactivated, AuditSCIMUserDeleted,
	AuditSCIMGroupCreated, AuditSCIMGroupUpdated, AuditSCIMGroupDeleted, AuditSCIMTokenCreated, AuditSCIMTokenRevoked, AuditSCIMRoleGroups,
	AuditTwoFactorOn, AuditTwoFactorOff, AuditPasskeyAdded, AuditPasskeyRemoved, AuditSessionEnded,
	AuditPasswordChanged, AuditPasswordReset, AuditSignOut,
	AuditSegmentCreated, AuditSegmentDeleted, AuditLinksCreated, AuditTranslations,
	AuditWebhookTested, AuditWebhookRotated, AuditWebhookEnabled, AuditWebhookDisabled,
	AuditTenantSuspended, AuditTenantResumed, AuditTenantPlan, AuditMemberAdded, AuditMemberActivated,
}

// ValidAuditAction reports whether a is one of AuditActions.
func ValidAuditAction(a string) bool { return slices.Contains(AuditActions, a) }

// AuditSystem is the actor of what the server did by itself.
const AuditSystem = "system"

// AuditTokenActor is the actor of an API token's request.
func AuditTokenActor(name string) string { return "token:" + name }

// Bounds of an AuditEvent's texts, in characters: longer ones are cut.
const (
	MaxAuditActor  = 254
	MaxAuditTarget = 200
	MaxAuditDetail = 300
)

// Clean cuts the event's texts to their bounds and strips control
// characters, so that what a client sent (an e-mail typed at sign-in)
// stays one short line.
func (e *AuditEvent) Clean() {
	e.Actor = cutRunes(CleanLine(e.Actor), MaxAuditActor)
	e.Target = cutRunes(CleanLine(e.Target), MaxAuditTarget)
	e.Detail = cutRunes(CleanLine(e.Detail), MaxAuditDetail)
	e.IP = cutRunes(CleanLine(e.IP), 64)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.ToValidUTF8(string([]rune(s)[:n]), "")
}

// AuditFilter selects a tenant's events: an action (one of AuditActions,
// or "" for all), an actor ("" for all; exact, case aside) and the days
// From and To (both included; zero for no bound), in UTC.
type AuditFilter struct {
	Action, Actor string
	From, To      time.Time
}

// Match reports whether e passes f.
func (f AuditFilter) Match(e AuditEvent) bool {
	if f.Action != "" && e.Action != f.Action {
		return false
	}
	if f.Actor != "" && !strings.EqualFold(e.Actor, f.Actor) {
		return false
	}
	if !f.From.IsZero() && e.At.Before(f.From) {
		return false
	}
	if !f.To.IsZero() && !e.At.Before(f.To.AddDate(0, 0, 1)) {
		return false
	}
	return true
}
