package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Passkeys (WebAuthn credentials) as a second factor: a row of
// PasskeysTable per credential, PartitionKey tenant, RowKey
// email + "|" + the SHA-256 (hex) of the credential's ID (an ID may be
// longer than a key may be).
//
//	Name        what the member called it ("Work laptop")
//	Credential  the credential as go-webauthn keeps it (JSON: its ID,
//	            public key, sign count, flags); nothing in it is secret
//	Created, LastUsed
//
// A ceremony's challenge (go-webauthn's SessionData, JSON) waits on the
// account's Users row, one per kind (PasskeyRegChallenge,
// PasskeyLoginChallenge): a new ceremony replaces the one before, and
// TakePasskeyChallenge removes it with a write If-Match, so a challenge
// serves once whatever instance answers.
const PasskeysTable = "Passkeys"

// MaxPasskeys bounds the passkeys of one account.
const MaxPasskeys = 10

// MaxPasskeyName bounds a passkey's name, in characters.
const MaxPasskeyName = 60

// maxPasskeyBlob bounds a credential's or challenge's stored JSON.
const maxPasskeyBlob = 16 << 10

// Passkey is one of an account's passkeys.
type Passkey struct {
	// ID names it in forms: the hex SHA-256 of the credential's ID.
	ID       string
	Name     string
	Created  time.Time
	LastUsed time.Time
	// Credential is the stored credential (JSON, for go-webauthn).
	Credential []byte
}

// Kinds of a passkey ceremony's challenge.
const (
	PasskeyRegister = "PasskeyRegChallenge"
	PasskeyLogin    = "PasskeyLoginChallenge"
)

// PasskeyID is the ID under which the credential of id is kept.
func PasskeyID(credentialID []byte) string {
	sum := sha256.Sum256(credentialID)
	return hex.EncodeToString(sum[:])
}

func validPasskeyID(id string) bool {
	if len(id) != 64 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func (us *UserStore) accountKeys(tenant, email string) (string, error) {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil {
		return "", survey.Errorf(survey.ENOTFOUND, "Account not found.")
	}
	return email, nil
}

// Passkeys lists an account's passkeys, oldest first.
func (us *UserStore) Passkeys(ctx context.Context, tenant, email string) ([]Passkey, error) {
	email, err := us.accountKeys(tenant, email)
	if err != nil {
		return nil, err
	}
	rows, err := queryAll(ctx, us.st, PasskeysTable, tenant, storage.Query{RowKeyFrom: email + "|", RowKeyTo: email + "}"})
	if err != nil {
		return nil, mapErr(err, "Passkey")
	}
	out := make([]Passkey, 0, len(rows))
	for _, e := range rows {
		out = append(out, Passkey{ID: strings.TrimPrefix(e.RowKey, email+"|"), Name: e.String("Name"), Created: e.Time("Created"),
			LastUsed: e.Time("LastUsed"), Credential: []byte(e.String("Credential"))})
	}
	slices.SortStableFunc(out, func(a, b Passkey) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// queryAll reads every row of a partition that q selects.
func queryAll(ctx context.Context, st storage.Storage, table, pk string, q storage.Query) ([]storage.Entity, error) {
	var rows []storage.Entity
	for {
		page, err := st.QueryPartition(ctx, table, pk, q)
		if isNotFound(err) {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, page.Entities...)
		if page.Continuation == "" {
			return rows, nil
		}
		q.Continuation = page.Continuation
	}
}

// CleanPasskeyName checks a passkey's name as typed: the clean name, or
// an EINVALID error that says what to fix.
func CleanPasskeyName(name string) (string, error) {
	name = strings.TrimSpace(survey.CleanLine(name))
	switch {
	case name == "":
		return "", &survey.Error{Code: survey.EINVALID, Message: "Name the passkey.", Fields: map[string]string{"name": "Give the passkey a name you will recognise, such as “Work laptop”."}}
	case len([]rune(name)) > MaxPasskeyName:
		return "", &survey.Error{Code: survey.EINVALID, Message: "The name is too long.", Fields: map[string]string{"name": "Keep the name under 60 characters."}}
	}
	return name, nil
}

// AddPasskey keeps a new passkey of an account (its credential, as JSON,
// and the credential's ID). EINVALID for a bad name or when the account
// has MaxPasskeys already; ECONFLICT when the credential is kept already.
func (us *UserStore) AddPasskey(ctx context.Context, tenant, email, name string, credentialID, credential []byte) (Passkey, error) {
	email, err := us.accountKeys(tenant, email)
	if err != nil {
		return Passkey{}, err
	}
	if name, err = CleanPasskeyName(name); err != nil {
		return Passkey{}, err
	}
	if len(credentialID) == 0 || len(credential) == 0 || len(credential) > maxPasskeyBlob {
		return Passkey{}, survey.Errorf(survey.EINVALID, "The passkey could not be read: try again.")
	}
	have, err := us.Passkeys(ctx, tenant, email)
	if err != nil {
		return Passkey{}, err
	}
	if len(have) >= MaxPasskeys {
		return Passkey{}, survey.Errorf(survey.EINVALID, "An account keeps at most %d passkeys: remove one you no longer use first.", MaxPasskeys)
	}
	if _, err := us.st.GetEntity(ctx, UsersTable, tenant, email); err != nil {
		return Passkey{}, mapErr(err, "Account")
	}
	p := Passkey{ID: PasskeyID(credentialID), Name: name, Created: us.now().UTC(), Credential: credential}
	_, err = us.st.InsertEntity(ctx, PasskeysTable, storage.Entity{PartitionKey: tenant, RowKey: email + "|" + p.ID, Properties: map[string]any{
		"Name": p.Name, "Created": p.Created, "Credential": string(credential)}})
	if errors.Is(err, storage.ErrExists) {
		return Passkey{}, survey.Errorf(survey.ECONFLICT, "This passkey is added already.")
	}
	if err != nil {
		return Passkey{}, mapErr(err, "Passkey")
	}
	return p, nil
}

// UsedPasskey notes a passkey's use: its credential as updated by the
// ceremony (the sign count) and the time. ENOTFOUND when it was removed
// meanwhile.
func (us *UserStore) UsedPasskey(ctx context.Context, tenant, email, id string, credential []byte) error {
	email, err := us.accountKeys(tenant, email)
	if err != nil {
		return err
	}
	if !validPasskeyID(id) || len(credential) > maxPasskeyBlob {
		return survey.Errorf(survey.ENOTFOUND, "No such passkey.")
	}
	e, err := us.st.GetEntity(ctx, PasskeysTable, tenant, email+"|"+id)
	if err != nil {
		return mapErr(err, "Passkey")
	}
	e.Properties["Credential"], e.Properties["LastUsed"] = string(credential), us.now().UTC()
	_, err = us.st.UpdateEntity(ctx, PasskeysTable, e, e.ETag)
	if isPrecondition(err) {
		return nil // used at once elsewhere: that use is noted
	}
	return mapErr(err, "Passkey")
}

// RemovePasskey removes one of an account's passkeys and returns its
// name; ENOTFOUND when there is no such passkey.
func (us *UserStore) RemovePasskey(ctx context.Context, tenant, email, id string) (string, error) {
	email, err := us.accountKeys(tenant, email)
	if err != nil {
		return "", err
	}
	if !validPasskeyID(id) {
		return "", survey.Errorf(survey.ENOTFOUND, "No such passkey.")
	}
	e, err := us.st.GetEntity(ctx, PasskeysTable, tenant, email+"|"+id)
	if err != nil {
		return "", mapErr(err, "Passkey")
	}
	if err := us.st.DeleteEntity(ctx, PasskeysTable, tenant, e.RowKey, ""); err != nil && !isNotFound(err) {
		return "", mapErr(err, "Passkey")
	}
	return e.String("Name"), nil
}

// removePasskeys removes all of an account's passkeys and returns how
// many there were.
func (us *UserStore) removePasskeys(ctx context.Context, tenant, email string) (int, error) {
	email = survey.NormalizeEmail(email)
	have, err := us.Passkeys(ctx, tenant, email)
	if err != nil {
		return 0, err
	}
	for _, p := range have {
		if err := us.st.DeleteEntity(ctx, PasskeysTable, tenant, email+"|"+p.ID, ""); err != nil && !isNotFound(err) {
			return 0, mapErr(err, "Passkey")
		}
	}
	return len(have), nil
}

// passkeyHolders returns how many passkeys each of the tenant's accounts
// has (one query of the tenant's partition).
func (us *UserStore) passkeyHolders(ctx context.Context, tenant string) (map[string]int, error) {
	rows, err := queryAll(ctx, us.st, PasskeysTable, tenant, storage.Query{})
	if err != nil {
		return nil, mapErr(err, "Passkey")
	}
	out := map[string]int{}
	for _, e := range rows {
		if email, _, ok := strings.Cut(e.RowKey, "|"); ok {
			out[email]++
		}
	}
	return out, nil
}

// SetPasskeyChallenge keeps a ceremony's challenge (kind PasskeyRegister
// or PasskeyLogin) on the account's row, replacing the one before.
func (us *UserStore) SetPasskeyChallenge(ctx context.Context, tenant, email, kind string, data []byte) error {
	if kind != PasskeyRegister && kind != PasskeyLogin || len(data) == 0 || len(data) > maxPasskeyBlob {
		return survey.Errorf(survey.EINVALID, "Not a passkey challenge.")
	}
	return us.updateUser(ctx, tenant, email, func(e *storage.Entity) error {
		e.Properties[kind] = string(data)
		return nil
	})
}

// TakePasskeyChallenge returns the account's challenge of kind and
// removes it (If-Match: of two requests with the same challenge, one
// gets it); ENOTFOUND when there is none.
func (us *UserStore) TakePasskeyChallenge(ctx context.Context, tenant, email, kind string) ([]byte, error) {
	if kind != PasskeyRegister && kind != PasskeyLogin {
		return nil, survey.Errorf(survey.ENOTFOUND, "No passkey challenge.")
	}
	var data string
	err := us.updateUser(ctx, tenant, email, func(e *storage.Entity) error {
		data = e.String(kind)
		if data == "" {
			return survey.Errorf(survey.ENOTFOUND, "No passkey challenge.")
		}
		delete(e.Properties, kind)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []byte(data), nil
}
