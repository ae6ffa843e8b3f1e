package store

import (
	"context"
	"fmt"
	"sort"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// UserEmailsTable indexes accounts by email (PartitionKey the email,
// RowKey the tenant), so that a person signs in with only an email and a
// password: the index names the organisations to check. The index row is
// written before the account and removed after it, so an account is never
// unindexed; a row whose account is gone is only a lookup that fails.
const UserEmailsTable = "UserEmails"

// MaxTenantsPerEmail bounds the organisations one email's sign-in checks.
const MaxTenantsPerEmail = 20

// emailsMarker is written once every account is indexed.
const emailsMarker = "user-emails-indexed"

func (us *UserStore) indexEmail(ctx context.Context, tenant, email string) error {
	_, err := us.st.UpsertEntity(ctx, UserEmailsTable, storage.Entity{PartitionKey: email, RowKey: tenant, Properties: map[string]any{}})
	return mapErr(err, "Account index")
}

func (us *UserStore) unindexEmail(ctx context.Context, tenant, email string) error {
	err := us.st.DeleteEntity(ctx, UserEmailsTable, email, tenant, "")
	if isNotFound(err) {
		return nil
	}
	return mapErr(err, "Account index")
}

// TenantsOf returns the keys of the organisations where email has an
// account, sorted (at most MaxTenantsPerEmail); none for an email that is
// not one.
func (us *UserStore) TenantsOf(ctx context.Context, email string) ([]string, error) {
	email = survey.NormalizeEmail(email)
	if !survey.ValidEmail(email) || storage.ValidateKey("email", email) != nil {
		return nil, nil
	}
	page, err := us.st.QueryPartition(ctx, UserEmailsTable, email, storage.Query{Top: MaxTenantsPerEmail})
	if err != nil {
		return nil, mapErr(err, "Account index")
	}
	var keys []string
	for _, e := range page.Entities {
		keys = append(keys, e.RowKey)
	}
	sort.Strings(keys)
	return keys, nil
}

// IndexEmails indexes the accounts of a store made before the index was
// kept. It runs once per store (a marker blob records it), at start-up,
// and is safe to run again; it returns the number of accounts indexed.
func IndexEmails(ctx context.Context, st storage.Storage) (int, error) {
	if _, err := st.GetBlob(ctx, SystemContainer, emailsMarker); err == nil {
		return 0, nil
	} else if !isNotFound(err) {
		return 0, mapErr(err, "Account index marker")
	}
	us := NewUserStore(st)
	n := 0
	q := storage.TableQuery{}
	for {
		page, err := st.QueryTable(ctx, UsersTable, q)
		if err != nil {
			return n, fmt.Errorf("store: read accounts: %w", err)
		}
		for _, e := range page.Entities {
			if err := us.indexEmail(ctx, e.PartitionKey, e.RowKey); err != nil {
				return n, err
			}
			n++
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	_, err := st.PutBlob(ctx, SystemContainer, emailsMarker, []byte("indexed"), storage.PutOptions{ContentType: "text/plain"})
	return n, mapErr(err, "Account index marker")
}

// SetPassword sets an account's password without the current one (the
// holder of a reset link proved they read the account's mail, or the
// operator set it), clears its failed attempts, ends every session of the
// account and revokes its outstanding reset links.
func (us *UserStore) SetPassword(ctx context.Context, tenant, email, password string) error {
	email = survey.NormalizeEmail(email)
	if err := survey.ValidateCredentials(email, password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), us.cost)
	if err != nil {
		return fmt.Errorf("store: hash password: %w", err)
	}
	for range 100 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if err != nil {
			return mapErr(err, "Account")
		}
		e.Properties["PasswordHash"], e.Properties["FailCount"] = string(hash), int64(0)
		_, err = us.st.UpdateEntity(ctx, UsersTable, e, e.ETag)
		if isPrecondition(err) {
			continue
		}
		if err != nil {
			return mapErr(err, "Account")
		}
		if err := us.EndSessions(ctx, tenant, email, ""); err != nil {
			return err
		}
		return NewLinkStore(us.st).RevokeFor(ctx, tenant, LinkReset, email)
	}
	return survey.Errorf(survey.ECONFLICT, "The account is busy; try again.")
}
