package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Passkeys (WebAuthn) as a second factor, beside the authenticator app's
// codes. A member adds passkeys on the two-step sign-in page: the page's
// script (web/static/passkeys.js) asks the server for a challenge (POST
// …/account/passkeys/begin, JSON), the browser's authenticator makes a
// credential, and the script puts the browser's answer (JSON) in a field
// of the page's form, which it posts. At sign-in, after a right
// password, an account with a passkey gets the same second page as an
// authenticator app's, with a button: the script asks for a challenge
// (POST /login/code/passkey, with the sealed half sign-in token) and
// posts the assertion in the code form. Without JavaScript the page still
// takes the app's code.
//
// The relying party is the configured public URL (its host is the RP ID,
// its origin the one origin accepted), never a request's Host. A
// challenge is kept on the account's row (store.SetPasskeyChallenge), one
// per ceremony kind, for passkeyTTL, and is taken once.

// Passkeys keeps the members' passkeys (store.UserStore).
type Passkeys interface {
	Passkeys(ctx context.Context, tenant, email string) ([]store.Passkey, error)
	AddPasskey(ctx context.Context, tenant, email, name string, credentialID, credential []byte) (store.Passkey, error)
	UsedPasskey(ctx context.Context, tenant, email, id string, credential []byte) error
	RemovePasskey(ctx context.Context, tenant, email, id string) (string, error)
	SetPasskeyChallenge(ctx context.Context, tenant, email, kind string, data []byte) error
	TakePasskeyChallenge(ctx context.Context, tenant, email, kind string) ([]byte, error)
}

// passkeyTTL is how long a ceremony's challenge is good for.
const passkeyTTL = 5 * time.Minute

// maxPasskeyResponse bounds a browser's answer to a ceremony.
const maxPasskeyResponse = 32 << 10

// newRelyingParty is the WebAuthn relying party of the public URL; nil
// when there is none (passkeys are then off), or it is not http(s).
func newRelyingParty(publicURL string) *webauthn.WebAuthn {
	u, err := url.Parse(publicURL)
	if err != nil || publicURL == "" || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" {
		return nil
	}
	timeout := webauthn.TimeoutConfig{Enforce: true, Timeout: passkeyTTL, TimeoutUVD: passkeyTTL}
	wa, err := webauthn.New(&webauthn.Config{
		RPID:          u.Hostname(),
		RPDisplayName: "Surveys",
		RPOrigins:     []string{u.Scheme + "://" + u.Host},
		// A second factor: the password came first, so presence is
		// enough, and a security key without a PIN will do.
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementDiscouraged,
			UserVerification: protocol.VerificationPreferred,
		},
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts:              webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
	if err != nil {
		return nil
	}
	return wa
}

// passkeyUser is an account as go-webauthn sees it.
type passkeyUser struct {
	id          []byte
	email, name string
	creds       []webauthn.Credential
	// ids maps a credential's store.PasskeyID to its index in creds.
	ids map[string]int
}

func (u *passkeyUser) WebAuthnID() []byte                         { return u.id }
func (u *passkeyUser) WebAuthnName() string                       { return u.email }
func (u *passkeyUser) WebAuthnDisplayName() string                { return u.name }
func (u *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

// passkeyHandle is an account's WebAuthn user handle: opaque (a keyed
// hash of tenant and e-mail, not the address itself) and stable.
func (s *Server) passkeyHandle(tenant, email string) []byte {
	m := hmac.New(sha256.New, s.signer.key)
	m.Write([]byte("surveys/passkey user\x00" + tenant + "\x00" + email))
	return m.Sum(nil)
}

// passkeyUserOf reads an account's passkeys into a passkeyUser.
func (s *Server) passkeyUserOf(ctx context.Context, tenant, email string) (*passkeyUser, []store.Passkey, error) {
	keys, err := s.passkeys.Passkeys(ctx, tenant, email)
	if err != nil {
		return nil, nil, err
	}
	u := &passkeyUser{id: s.passkeyHandle(tenant, email), email: email, name: email + " (" + tenant + ")", ids: map[string]int{}}
	for _, k := range keys {
		var c webauthn.Credential
		if json.Unmarshal(k.Credential, &c) != nil || len(c.ID) == 0 {
			continue // unreadable: never matches
		}
		u.ids[k.ID] = len(u.creds)
		u.creds = append(u.creds, c)
	}
	return u, keys, nil
}

// passkeysOn reports whether this server can take passkeys.
func (s *Server) passkeysOn() bool { return s.passkeys != nil && s.webauthn != nil }

// writeJSON answers a script's request.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

type passkeyProblem struct {
	Error string `json:"error"`
}

// beginPasskeyRegistration answers the page's script with the options of
// a new credential (JSON) and keeps their challenge.
func (s *Server) beginPasskeyRegistration(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r.Context())
	if !s.passkeysOn() {
		writeJSON(w, http.StatusNotFound, passkeyProblem{"This server takes no passkeys: its operator must set its public URL first."})
		return nil
	}
	u, keys, err := s.passkeyUserOf(r.Context(), sess.Tenant, sess.Email)
	if err != nil {
		return err
	}
	if len(keys) >= store.MaxPasskeys {
		writeJSON(w, http.StatusUnprocessableEntity, passkeyProblem{"You have the most passkeys an account keeps: remove one you no longer use first."})
		return nil
	}
	creation, data, err := s.webauthn.BeginRegistration(u, webauthn.WithExclusions(webauthn.Credentials(u.creds).CredentialDescriptors()))
	if err != nil {
		return err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := s.passkeys.SetPasskeyChallenge(r.Context(), sess.Tenant, sess.Email, store.PasskeyRegister, raw); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, creation)
	return nil
}

// addPasskey finishes a registration: the form's name and the browser's
// answer (JSON, field "credential"), checked against the challenge kept.
func (s *Server) addPasskey(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxPasskeyResponse+4096)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read: try again.")
	}
	sess := sessionFrom(r.Context())
	page, err := s.twoFactorPageFor(r)
	if err != nil {
		return err
	}
	if !s.passkeysOn() {
		return notFound("Page not found.")
	}
	page.PasskeyName = r.PostForm.Get("name")
	name, err := store.CleanPasskeyName(page.PasskeyName)
	var bad *survey.Error
	if errors.As(err, &bad) {
		page.Errors = bad.Fields
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	fail := func(msg string) error {
		page.Errors = map[string]string{"passkey": msg}
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	body := r.PostForm.Get("credential")
	if body == "" {
		return fail("Your browser sent no passkey. Press “Add a passkey” and follow what your browser asks (this needs JavaScript).")
	}
	raw, err := s.passkeys.TakePasskeyChallenge(r.Context(), sess.Tenant, sess.Email, store.PasskeyRegister)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return fail("That took too long or was done in another tab: press “Add a passkey” again.")
	}
	if err != nil {
		return err
	}
	var data webauthn.SessionData
	if json.Unmarshal(raw, &data) != nil {
		return fail("That took too long or was done in another tab: press “Add a passkey” again.")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes([]byte(body))
	if err != nil {
		return fail("Your browser's answer could not be read: press “Add a passkey” again.")
	}
	u, _, err := s.passkeyUserOf(r.Context(), sess.Tenant, sess.Email)
	if err != nil {
		return err
	}
	cred, err := s.webauthn.CreateCredential(u, data, parsed)
	if err != nil {
		s.log.Info("passkey refused at registration", "tenant", sess.Tenant, "member", sess.Email, "err", err)
		return fail("The passkey was not accepted (it may have been made for another site, or took over five minutes): press “Add a passkey” again.")
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	p, err := s.passkeys.AddPasskey(r.Context(), sess.Tenant, sess.Email, name, cred.ID, stored)
	var e *survey.Error
	if errors.As(err, &e) && (e.Code == survey.EINVALID || e.Code == survey.ECONFLICT) {
		return fail(e.Message)
	}
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditPasskeyAdded, sess.Email, p.Name)
	if sess.MustEnrol {
		if err := s.enrolDone(r); err != nil {
			return err
		}
	}
	http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor?passkey=added", http.StatusSeeOther)
	return nil
}

// removePasskeyPage asks before a passkey is removed.
type removePasskeyPage struct {
	User    *store.Session
	Passkey store.Passkey
	// Last: it is the member's last second factor.
	Last bool
}

// passkeyToRemove finds the signed-in member's passkey of the id asked.
func (s *Server) passkeyToRemove(r *http.Request, id string) (removePasskeyPage, error) {
	sess := sessionFrom(r.Context())
	page := removePasskeyPage{User: sess}
	if !s.passkeysOn() {
		return page, notFound("Page not found.")
	}
	keys, err := s.passkeys.Passkeys(r.Context(), sess.Tenant, sess.Email)
	if err != nil {
		return page, err
	}
	for _, k := range keys {
		if k.ID == id {
			page.Passkey = k
			tf, err := s.twoFactor.TwoFactor(r.Context(), sess.Tenant, sess.Email)
			if err != nil {
				return page, err
			}
			page.Last = !tf.On && len(keys) == 1
			return page, nil
		}
	}
	return page, notFound("No such passkey: it may have been removed already.")
}

// confirmRemovePasskey asks before removePasskey.
func (s *Server) confirmRemovePasskey(w http.ResponseWriter, r *http.Request) error {
	page, err := s.passkeyToRemove(r, r.URL.Query().Get("id"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "passkey_remove", page)
	return nil
}

// removePasskey removes one of the member's passkeys; a tenant that
// requires two steps keeps a member's last second factor.
func (s *Server) removePasskey(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	sess := sessionFrom(r.Context())
	page, err := s.passkeyToRemove(r, r.PostForm.Get("id"))
	if err != nil {
		return err
	}
	if page.Last {
		if t, err := s.public.Tenant(r.Context(), sess.Tenant); err == nil && t.RequireTwoFactor {
			tf, err := s.twoFactorPageFor(r)
			if err != nil {
				return err
			}
			tf.Message = "Your organisation requires two-step sign-in, and this passkey is your only second step: add another passkey or the authenticator app first."
			s.render(w, r, http.StatusUnprocessableEntity, "twofactor", tf)
			return nil
		}
	}
	name, err := s.passkeys.RemovePasskey(r.Context(), sess.Tenant, sess.Email, page.Passkey.ID)
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditPasskeyRemoved, sess.Email, name)
	http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor?passkey=removed", http.StatusSeeOther)
	return nil
}

// beginPasskeySignIn answers the second page's script: the options of an
// assertion by one of the account's passkeys (JSON), for the account of
// the sealed half sign-in token; their challenge is kept.
func (s *Server) beginPasskeySignIn(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	var h halfSignIn
	if !s.passkeysOn() || s.steps.open(r.PostForm.Get("token"), halfSignInAD, &h, func() int64 { return h.Expires }) != nil {
		writeJSON(w, http.StatusBadRequest, passkeyProblem{"Your sign-in took more than five minutes: sign in again."})
		return nil
	}
	u, _, err := s.passkeyUserOf(r.Context(), h.Tenant, h.Email)
	if err != nil {
		return err
	}
	if len(u.creds) == 0 {
		writeJSON(w, http.StatusNotFound, passkeyProblem{"This account has no passkey: enter the code of your authenticator app."})
		return nil
	}
	assertion, data, err := s.webauthn.BeginLogin(u)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if err := s.passkeys.SetPasskeyChallenge(r.Context(), h.Tenant, h.Email, store.PasskeyLogin, raw); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, assertion)
	return nil
}

const badPasskeyMessage = "Your passkey was not accepted (or there were too many attempts: wait a minute). Try again, or use the code of your authenticator app."

// passkeySecondFactor checks the assertion a browser posted for the
// account of h; true when it is good (the passkey's use is noted).
func (s *Server) passkeySecondFactor(ctx context.Context, h halfSignIn, body string) (bool, error) {
	if len(body) > maxPasskeyResponse {
		return false, nil
	}
	raw, err := s.passkeys.TakePasskeyChallenge(ctx, h.Tenant, h.Email, store.PasskeyLogin)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var data webauthn.SessionData
	if json.Unmarshal(raw, &data) != nil {
		return false, nil
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes([]byte(body))
	if err != nil {
		return false, nil
	}
	u, _, err := s.passkeyUserOf(ctx, h.Tenant, h.Email)
	if err != nil {
		return false, err
	}
	cred, err := s.webauthn.ValidateLogin(u, data, parsed)
	if err != nil {
		s.log.Info("passkey refused at sign-in", "tenant", h.Tenant, "member", h.Email, "err", err)
		return false, nil
	}
	if cred.Authenticator.CloneWarning {
		s.log.Warn("passkey refused: its signature counter went back (a cloned authenticator?)", "tenant", h.Tenant, "member", h.Email)
		return false, nil
	}
	stored, err := json.Marshal(cred)
	if err != nil {
		return false, err
	}
	err = s.passkeys.UsedPasskey(ctx, h.Tenant, h.Email, store.PasskeyID(cred.ID), stored)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return false, nil // removed meanwhile
	}
	return err == nil, err
}

// passkeyField reads the credential field of a form as posted (a short
// helper for secondFactor).
func passkeyField(r *http.Request) string {
	return strings.TrimSpace(r.PostForm.Get("passkey"))
}

// memberPasskeys lists the signed-in member's passkeys for their page.
func (s *Server) memberPasskeys(r *http.Request) ([]store.Passkey, error) {
	if !s.passkeysOn() {
		return nil, nil
	}
	sess := sessionFrom(r.Context())
	return s.passkeys.Passkeys(r.Context(), sess.Tenant, sess.Email)
}
