package store

import (
	"context"
	"fmt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TenantDeletion counts what DeleteTenant removed.
type TenantDeletion struct {
	Surveys, Users, Sessions, Tokens, Logos int
}

// DeleteTenant removes a tenant and all its data: its surveys (with their
// questions, answers, lists and summaries), accounts, sessions, API and SCIM tokens, SCIM
// directory, logos, webhook endpoints, custom domain, audit log, SAML identity provider and sign-ins under way, then its record. It suspends the tenant first, so nothing new
// arrives while it runs, and removes the record last, so a run cut short is
// finished by running it again.
func DeleteTenant(ctx context.Context, st storage.Storage, tenants *TenantStore, key string) (TenantDeletion, error) {
	var d TenantDeletion
	t, err := tenants.Get(ctx, key)
	if err != nil {
		return d, err
	}
	if !t.Suspended {
		t.Suspended = true
		if err := tenants.Update(ctx, t); err != nil {
			return d, err
		}
	}
	surveys := NewSurveyStore(st)
	list, err := surveys.List(ctx, key)
	if err != nil {
		return d, err
	}
	for _, s := range list {
		if err := surveys.Delete(ctx, key, s.Slug); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return d, fmt.Errorf("delete survey %s: %w", s.Slug, err)
		}
		d.Surveys++
	}
	// Accounts and sign-ins under way are partitioned by tenant; the
	// accounts' index rows (partitioned by email) go first.
	if err := unindexTenant(ctx, st, key); err != nil {
		return d, err
	}
	if d.Users, err = deleteRows(ctx, st, UsersTable, []string{key}, nil); err != nil {
		return d, err
	}
	if _, err = deleteRows(ctx, st, SignInsTable, []string{key}, nil); err != nil {
		return d, err
	}
	if _, err = deleteRows(ctx, st, UserSessionsTable, []string{key}, nil); err != nil {
		return d, err
	}
	if _, err = deleteRows(ctx, st, PasskeysTable, []string{key}, nil); err != nil {
		return d, err
	}
	// Sessions, tokens and links are partitioned by a hash prefix: all 256 are read.
	var prefixes []string
	for i := range 256 {
		prefixes = append(prefixes, fmt.Sprintf("%02x", i))
	}
	ofTenant := func(e storage.Entity) bool { return e.String("Tenant") == key }
	if d.Sessions, err = deleteRows(ctx, st, SessionsTable, prefixes, ofTenant); err != nil {
		return d, err
	}
	if d.Tokens, err = deleteRows(ctx, st, TokensTable, prefixes, ofTenant); err != nil {
		return d, err
	}
	if _, err = deleteRows(ctx, st, SCIMTokensTable, prefixes, ofTenant); err != nil {
		return d, err
	}
	// Its SCIM directory: users, groups, which group gives which role.
	if _, err = deleteRows(ctx, st, SCIMTable, []string{key}, nil); err != nil {
		return d, err
	}
	// Single-use links (resets, invitations) die with the tenant.
	if _, err = deleteRows(ctx, st, LinksTable, prefixes, ofTenant); err != nil {
		return d, err
	}
	// Webhook endpoints, and the bodies of their events waiting.
	if _, err = deleteRows(ctx, st, WebhooksTable, []string{key}, nil); err != nil {
		return d, err
	}
	// The counts of the e-mails it sent.
	if _, err = deleteRows(ctx, st, MailQuotasTable, []string{key}, nil); err != nil {
		return d, err
	}
	// The members' e-mail choices.
	if _, err = deleteRows(ctx, st, NotificationsTable, []string{key}, nil); err != nil {
		return d, err
	}
	// The surveys' saved segments.
	if _, err = deleteRows(ctx, st, SavedSegmentsTable, []string{key}, nil); err != nil {
		return d, err
	}
	// Its custom domain: the host's row, then its own.
	if _, err := NewDomainStore(st).Remove(ctx, key); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return d, err
	}
	// Its contact lists, the addresses that unsubscribed or bounced, its
	// campaigns and their sends.
	if err := deleteCampaigns(ctx, st, key); err != nil {
		return d, err
	}
	if _, err = deleteRows(ctx, st, ContactsTable, []string{key}, nil); err != nil {
		return d, err
	}
	// Its audit log.
	if _, err = deleteRows(ctx, st, AuditTable, []string{key}, nil); err != nil {
		return d, err
	}
	// Its SAML identity provider, with the service provider's key.
	if err := NewSAMLStore(st).Delete(ctx, key); err != nil {
		return d, err
	}
	if _, err = deleteBlobs(ctx, st, WebhookPayloadsContainer, key+"-"); err != nil {
		return d, err
	}
	if d.Logos, err = deleteBlobs(ctx, st, LogosContainer, key+"-"); err != nil {
		return d, err
	}
	if err := tenants.Delete(ctx, key); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return d, err
	}
	return d, nil
}

// unindexTenant removes the UserEmails rows of a tenant's accounts.
func unindexTenant(ctx context.Context, st storage.Storage, key string) error {
	q := storage.Query{}
	for {
		page, err := st.QueryPartition(ctx, UsersTable, key, q)
		if err != nil {
			return fmt.Errorf("store: read %s/%s: %w", UsersTable, key, err)
		}
		for _, e := range page.Entities {
			if err := st.DeleteEntity(ctx, UserEmailsTable, e.RowKey, key, ""); err != nil && !isNotFound(err) {
				return fmt.Errorf("store: unindex %s: %w", e.RowKey, err)
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}

// deleteRows deletes the rows of the partitions that match (all when match
// is nil), and returns how many.
func deleteRows(ctx context.Context, st storage.Storage, table string, partitions []string, match func(storage.Entity) bool) (int, error) {
	n := 0
	for _, pk := range partitions {
		q := storage.Query{}
		for {
			page, err := st.QueryPartition(ctx, table, pk, q)
			if err != nil {
				return n, fmt.Errorf("store: read %s/%s: %w", table, pk, err)
			}
			for _, e := range page.Entities {
				if match != nil && !match(e) {
					continue
				}
				if err := st.DeleteEntity(ctx, table, pk, e.RowKey, ""); err != nil && !isNotFound(err) {
					return n, fmt.Errorf("store: delete %s/%s/%s: %w", table, pk, e.RowKey, err)
				}
				n++
			}
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
	}
	return n, nil
}

// deleteBlobs deletes the blobs of a container whose names start with
// prefix, and returns how many.
func deleteBlobs(ctx context.Context, st storage.Storage, container, prefix string) (int, error) {
	n := 0
	o := storage.ListOptions{Prefix: prefix}
	for {
		page, err := st.ListBlobs(ctx, container, o)
		if err != nil {
			return n, fmt.Errorf("store: list %s/%s: %w", container, prefix, err)
		}
		for _, it := range page.Items {
			if err := st.DeleteBlob(ctx, container, it.Name, ""); err != nil && !isNotFound(err) {
				return n, fmt.Errorf("store: delete %s/%s: %w", container, it.Name, err)
			}
			n++
		}
		if page.NextMarker == "" {
			return n, nil
		}
		o.Marker = page.NextMarker
	}
}
