package survey

// Role is what a member of a tenant (a person, or an API token) may do.
// The roles are ordered: an admin may do all an editor may, an editor all a
// viewer may.
type Role string

// The roles.
const (
	// Admin manages the tenant: settings, identity provider, database,
	// members, API tokens, plan; and all an editor does.
	Admin Role = "admin"
	// Editor designs, publishes, closes, trashes, restores, deletes and
	// duplicates surveys, copies answers to the tenant's database and
	// deletes single answers; and all a viewer does.
	Editor Role = "editor"
	// Viewer reads: the dashboard, analysis, answers, exports and the share
	// page.
	Viewer Role = "viewer"
)

// Roles are the roles, the most powerful first (the order of a form's
// choices).
var Roles = []Role{Admin, Editor, Viewer}

// rank orders the roles; 0 is no role.
var rank = map[Role]int{Viewer: 1, Editor: 2, Admin: 3}

// ParseRole reads a role a person chose in a form or an API call: one of
// the three names, nothing else.
func ParseRole(s string) (Role, error) {
	if r := Role(s); rank[r] > 0 {
		return r, nil
	}
	return "", &Error{Code: EINVALID, Message: "Choose a role.", Fields: map[string]string{"role": "Choose admin, editor or viewer."}}
}

// StoredRole reads the role stored on an account, a session or an API
// token. None ("") is admin: accounts and tokens made before roles existed
// could do everything, and keep doing it. An unknown name is a viewer, the
// least power.
func StoredRole(s string) Role {
	if s == "" {
		return Admin
	}
	if r := Role(s); rank[r] > 0 {
		return r
	}
	return Viewer
}

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return rank[r] > 0 }

// Label is the role's name for people.
func (r Role) Label() string {
	switch r {
	case Admin:
		return "Admin"
	case Editor:
		return "Editor"
	case Viewer:
		return "Viewer"
	}
	return "No role"
}

// Action is something a role may or may not do; each route of the site and
// of the API names the one it does.
type Action string

// The actions, each with the least role that may do it (mayDo).
const (
	// ReadResults: the dashboard, analysis, answers, exports, the share
	// page and preview, one's own password.
	ReadResults Action = "read results"
	// EditSurveys: design, publish, close, trash, restore, delete for
	// good, duplicate, challenge on/off.
	EditSurveys Action = "edit surveys"
	// DeleteAnswers: delete a single answer (spam).
	DeleteAnswers Action = "delete answers"
	// TransferAnswers: copy a survey's answers into the tenant's database.
	TransferAnswers Action = "transfer answers"
	// ManageTenant: settings (name, logo, plan), identity provider,
	// database connection.
	ManageTenant Action = "manage the tenant"
	// ManageMembers: invite, change roles, remove members.
	ManageMembers Action = "manage members"
	// ManageTokens: create, list and revoke API tokens.
	ManageTokens Action = "manage API tokens"
)

// mayDo is the least role each action needs.
var mayDo = map[Action]Role{
	ReadResults:     Viewer,
	EditSurveys:     Editor,
	DeleteAnswers:   Editor,
	TransferAnswers: Editor,
	ManageTenant:    Admin,
	ManageMembers:   Admin,
	ManageTokens:    Admin,
}

// May reports whether role r may do a. An unknown action or role may
// nothing.
func (r Role) May(a Action) bool {
	least, ok := mayDo[a]
	return ok && rank[r] > 0 && rank[r] >= rank[least]
}

// Forbidden is the error of a role that may not do a.
func (r Role) Forbidden(a Action) error {
	return Errorf(EFORBIDDEN, "Your role (%s) may not %s; ask an admin of your organisation.", r.Label(), a)
}

// Grants reports whether r may hand out role other (to an invitation or an
// API token): never more than its own.
func (r Role) Grants(other Role) bool { return rank[other] > 0 && rank[r] >= rank[other] }

// ExternalRole is the role of a person whom the tenant's own identity
// provider signs in without an account here (no invitation, no admin set
// one): an editor. The provider vouches that they are staff, not what
// they should manage; an admin changes it on the members page.
const ExternalRole = Editor
