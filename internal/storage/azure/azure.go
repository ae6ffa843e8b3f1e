// Package azure implements storage.Storage on an Azure Storage account (or
// Azurite) with the Azure SDKs for Go: aztables for tables, azblob for blobs
// and azqueue for queues.
//
// Every operation first runs the validation of package storage, so that it
// rejects exactly the input the embedded implementation rejects, before any
// request is sent. Service errors are mapped onto the sentinel errors of
// package storage (see errors.go); the *azcore.ResponseError stays in the
// chain for errors.As.
package azure

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Config says which storage account to use and how to authenticate. Exactly
// one of ConnectionString and AccountName must be set.
type Config struct {
	// ConnectionString is an account connection string with a shared key or
	// a SAS, such as Azurite's ("DefaultEndpointsProtocol=http;AccountName=
	// devstoreaccount1;AccountKey=...;BlobEndpoint=...;QueueEndpoint=...;
	// TableEndpoint=...").
	ConnectionString string
	// AccountName is the name of an Azure Storage account reached at
	// https://<AccountName>.{blob,queue,table}.core.windows.net and
	// authenticated with azidentity.NewDefaultAzureCredential (managed
	// identity, workload identity, environment, Azure CLI...).
	AccountName string
	// HTTPClient, when set, sends every request; otherwise the SDKs' default
	// transport is used.
	HTTPClient *http.Client
}

// Store is a storage.Storage on an Azure Storage account. It is safe for
// concurrent use.
type Store struct {
	tables *aztables.ServiceClient
	blobs  *azblob.Client
	queues *azqueue.ServiceClient
}

var _ storage.Storage = (*Store)(nil)

// New returns a Store for the account cfg names. It sends no request; use
// Ping to check that the account is reachable.
func New(cfg Config) (*Store, error) {
	var opts azcore.ClientOptions
	if cfg.HTTPClient != nil {
		opts.Transport = cfg.HTTPClient
	}
	// Update Message without a body changes only the visibility timeout;
	// azqueue always sends one, so this policy removes it on request.
	queueOpts := opts
	queueOpts.PerCallPolicies = append([]policy.Policy{dropBodyPolicy{}}, opts.PerCallPolicies...)

	// SubmitTransaction does not escape quotes in keys; this policy does.
	tableOpts := opts
	tableOpts.PerCallPolicies = append([]policy.Policy{batchQuotePolicy{}}, opts.PerCallPolicies...)

	s := &Store{}
	var err error
	switch {
	case cfg.ConnectionString != "" && cfg.AccountName != "":
		return nil, fmt.Errorf("azure: config sets both ConnectionString and AccountName: %w", storage.ErrInvalid)
	case cfg.ConnectionString != "":
		if s.tables, err = aztables.NewServiceClientFromConnectionString(cfg.ConnectionString, &aztables.ClientOptions{ClientOptions: tableOpts}); err != nil {
			return nil, fmt.Errorf("azure: table client: %w", err)
		}
		if s.blobs, err = azblob.NewClientFromConnectionString(cfg.ConnectionString, &azblob.ClientOptions{ClientOptions: opts}); err != nil {
			return nil, fmt.Errorf("azure: blob client: %w", err)
		}
		if s.queues, err = azqueue.NewServiceClientFromConnectionString(cfg.ConnectionString, &azqueue.ClientOptions{ClientOptions: queueOpts}); err != nil {
			return nil, fmt.Errorf("azure: queue client: %w", err)
		}
	case cfg.AccountName != "":
		cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: opts})
		if err != nil {
			return nil, fmt.Errorf("azure: credential: %w", err)
		}
		endpoint := func(svc string) string { return "https://" + cfg.AccountName + "." + svc + ".core.windows.net/" }
		if s.tables, err = aztables.NewServiceClient(endpoint("table"), cred, &aztables.ClientOptions{ClientOptions: tableOpts}); err != nil {
			return nil, fmt.Errorf("azure: table client: %w", err)
		}
		if s.blobs, err = azblob.NewClient(endpoint("blob"), cred, &azblob.ClientOptions{ClientOptions: opts}); err != nil {
			return nil, fmt.Errorf("azure: blob client: %w", err)
		}
		if s.queues, err = azqueue.NewServiceClient(endpoint("queue"), cred, &azqueue.ClientOptions{ClientOptions: queueOpts}); err != nil {
			return nil, fmt.Errorf("azure: queue client: %w", err)
		}
	default:
		return nil, fmt.Errorf("azure: config sets neither ConnectionString nor AccountName: %w", storage.ErrInvalid)
	}
	return s, nil
}

// Ping lists at most one container: a cheap request that needs only data
// plane permissions.
func (s *Store) Ping(ctx context.Context) error {
	pager := s.blobs.ServiceClient().NewListContainersPager(&service.ListContainersOptions{MaxResults: to.Ptr(int32(1))})
	if _, err := pager.NextPage(ctx); err != nil {
		return wrap(err, "ping blob service")
	}
	return nil
}

// Close releases nothing: the SDK clients hold no resources beyond idle
// HTTP connections.
func (s *Store) Close() error { return nil }

// errNoResponse reports a success response that lacks a field it must have.
var errNoResponse = errors.New("azure: the service returned an incomplete response")
