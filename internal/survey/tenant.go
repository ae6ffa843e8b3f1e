package survey

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/theme"
)

// Plan is a subscription plan.
type Plan string

const (
	Trial      Plan = "Trial"
	Individual Plan = "Individual"
	Standard   Plan = "Standard"
	Premium    Plan = "Premium"
)

// Tenant is a subscriber. Key is its identity in every storage key and URL.
type Tenant struct {
	Key       string    `json:"key"`
	Name      string    `json:"name"`
	Plan      Plan      `json:"plan"`
	CreatedOn time.Time `json:"createdOn"`
	// Logo is the name of the tenant's logo blob in the logos container.
	Logo string `json:"logo,omitempty"`
	// The tenant's own identity provider, as Tailspin's Tenant record had it:
	// staff sign in through IssuerURL's OpenID Connect provider, and a user
	// whose ID token carries ClaimType with ClaimValue is let in.
	IssuerURL string `json:"issuerUrl,omitempty"`
	ClientID  string `json:"clientId,omitempty"`
	// ClientSecret is a secret: the TenantStore seals it, and it is never
	// written in the clear.
	ClientSecret string `json:"-"`
	ClaimType    string `json:"claimType,omitempty"`
	ClaimValue   string `json:"claimValue,omitempty"`
	// SQLConnection is the tenant's PostgreSQL database for transfers, a
	// connection string without its password; SQLPassword is a secret, sealed
	// by the TenantStore like ClientSecret.
	SQLConnection string `json:"sqlConnection,omitempty"`
	SQLPassword   string `json:"-"`
	// HostGeoLocation names the region whose storage account holds the data.
	HostGeoLocation string `json:"hostGeoLocation,omitempty"`
	Suspended       bool   `json:"suspended,omitempty"`
	// RequireTwoFactor: every member who signs in with a password must
	// use two-step sign-in; one without it is sent to turn it on before
	// anything else (a sign-in through the tenant's identity provider is
	// that provider's to secure).
	RequireTwoFactor bool `json:"requireTwoFactor,omitempty"`
	// Theme is the look of the tenant's surveys (a survey may have its
	// own); nil: the usual look.
	Theme *theme.Theme `json:"theme,omitempty"`
	// RetainDays is the default retention rule of its surveys: answers
	// older than that many days are deleted (0: kept). A survey's own
	// rule (Survey.RetainDays) comes first.
	RetainDays int `json:"retainDays,omitempty"`
	// SessionIdleMinutes is how long a member's session lives unused
	// (one of SessionIdleChoices; 0: DefaultSessionIdle).
	SessionIdleMinutes int `json:"sessionIdleMinutes,omitempty"`
}

// DefaultSessionIdle is how long a session lives unused when its tenant
// set no time.
const DefaultSessionIdle = 12 * time.Hour

// SessionIdleChoices are the idle times a tenant may set, in minutes (a
// session lives at most a week, whatever its use).
var SessionIdleChoices = []int{15, 30, 60, 4 * 60, 8 * 60, 12 * 60, 24 * 60, 3 * 24 * 60, 7 * 24 * 60}

// SessionIdle is how long the tenant's members' sessions live unused.
func (t *Tenant) SessionIdle() time.Duration {
	if t.SessionIdleMinutes <= 0 {
		return DefaultSessionIdle
	}
	return time.Duration(t.SessionIdleMinutes) * time.Minute
}

// Normalize cleans the tenant's display name (CleanLine) and trims its
// white space.
func (t *Tenant) Normalize() { t.Name = strings.TrimSpace(CleanLine(t.Name)) }

// Validate checks a tenant record.
func (t *Tenant) Validate() error {
	f := fieldErrors{}
	if err := ValidateTenantKey(t.Key); err != nil {
		f.add("key", "%s", ErrorMessage(err))
	}
	switch n := utf8.RuneCountInString(t.Name); {
	case strings.TrimSpace(t.Name) == "":
		f.add("name", "Give the tenant a name.")
	case n > 100:
		f.add("name", "Keep the name to 100 characters.")
	case !IsCleanLine(t.Name):
		f.add("name", "The name may not contain control characters or direction overrides.")
	}
	switch t.Plan {
	case Trial, Individual, Standard, Premium:
	default:
		f.add("plan", "Choose a plan.")
	}
	addThemeProblems(f, t.Theme, t.Key)
	if err := ValidRetainDays(t.RetainDays); err != nil {
		f.add("retainDays", "%s", ErrorMessage(err))
	}
	if t.SessionIdleMinutes != 0 && !slices.Contains(SessionIdleChoices, t.SessionIdleMinutes) {
		f.add("sessionIdle", "Choose one of the idle times offered.")
	}
	return f.err("The tenant")
}

// PlanLimits are what a plan allows; 0 means no limit.
type PlanLimits struct {
	ActiveSurveys      int // published at once
	QuestionsPerSurvey int
	AnswersPerSurvey   int
	TrialDays          int
	// UploadMB bounds a file a respondent sends, in MB (a question may
	// allow less); UploadStorageMB bounds the tenant's stored files, all
	// surveys together, in MB.
	UploadMB, UploadStorageMB int
}

// Plans lists the plans a subscriber may choose, cheapest first.
var Plans = []Plan{Trial, Individual, Standard, Premium}

// Limits returns the plan's limits.
func (p Plan) Limits() PlanLimits {
	switch p {
	case Trial:
		return PlanLimits{ActiveSurveys: 1, QuestionsPerSurvey: 10, AnswersPerSurvey: 100, TrialDays: 30, UploadMB: 5, UploadStorageMB: 100}
	case Individual:
		return PlanLimits{ActiveSurveys: 3, QuestionsPerSurvey: 20, AnswersPerSurvey: 1000, UploadMB: 10, UploadStorageMB: 1024}
	case Standard:
		return PlanLimits{ActiveSurveys: 10, QuestionsPerSurvey: MaxQuestions, AnswersPerSurvey: 10000, UploadMB: 25, UploadStorageMB: 10 * 1024}
	default:
		return PlanLimits{QuestionsPerSurvey: MaxQuestions, UploadMB: MaxUploadMB, UploadStorageMB: 100 * 1024}
	}
}

// TrialEnds is when a Trial tenant's trial ends; zero for the other plans.
func (t *Tenant) TrialEnds() time.Time {
	days := t.Plan.Limits().TrialDays
	if days == 0 || t.CreatedOn.IsZero() {
		return time.Time{}
	}
	return t.CreatedOn.AddDate(0, 0, days)
}

// CheckActive says why a tenant may not publish or take answers now: it is
// suspended, or its trial has ended. Nil when it may.
func (t *Tenant) CheckActive(now time.Time) error {
	if t.Suspended {
		return Errorf(EFORBIDDEN, "This subscription is suspended; contact the operator of this site.")
	}
	if end := t.TrialEnds(); !end.IsZero() && !now.Before(end) {
		return Errorf(EFORBIDDEN, "The trial ended on %s; to publish and take answers again, ask us for a paid plan (Settings says how).", end.Format("2 January 2006"))
	}
	return nil
}

// CheckQuestions says why a survey of n questions is too long for the plan.
func (p Plan) CheckQuestions(n int) error {
	if max := p.Limits().QuestionsPerSurvey; max > 0 && n > max {
		return &Error{Code: EINVALID, Message: fmt.Sprintf("The %s plan allows %d questions per survey; remove %d, or choose a bigger plan in Settings.", p, max, n-max),
			Fields: map[string]string{"plan": fmt.Sprintf("At most %d questions on the %s plan.", max, p)}}
	}
	return nil
}

// CheckPublish says why a tenant that has active surveys published may not
// publish one more.
func (p Plan) CheckPublish(active int) error {
	if max := p.Limits().ActiveSurveys; max > 0 && active >= max {
		return Errorf(EFORBIDDEN, "The %s plan allows %s at a time; close one first, or choose a bigger plan in Settings.", p, Count(max, "published survey"))
	}
	return nil
}

// AnswersLeft reports whether a survey with total answers may take more.
func (p Plan) AnswersLeft(total int64) bool {
	max := p.Limits().AnswersPerSurvey
	return max == 0 || total < int64(max)
}
