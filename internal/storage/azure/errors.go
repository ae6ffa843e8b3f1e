package azure

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/surveys-dev/surveys/internal/storage"
)

// serviceError is a service error response mapped onto a sentinel of package
// storage. Both the sentinel and the *azcore.ResponseError are in its chain.
type serviceError struct {
	sentinel error
	resp     *azcore.ResponseError
}

func (e *serviceError) Error() string {
	return fmt.Sprintf("%v (HTTP %d %s)", e.sentinel, e.resp.StatusCode, e.resp.ErrorCode)
}

func (e *serviceError) Unwrap() []error { return []error{e.sentinel, e.resp} }

// wrap adds the operation's description to err, mapping a service error
// response onto the sentinel errors of package storage. It returns nil for
// a nil err.
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("azure: %s: %w", fmt.Sprintf(format, args...), mapResponse(err))
}

// mapResponse returns a *serviceError for a service error response that
// maps onto a sentinel, and err otherwise.
func mapResponse(err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		if s := sentinel(re.StatusCode, re.ErrorCode); s != nil {
			return &serviceError{sentinel: s, resp: re}
		}
	}
	return err
}

// sentinel maps a service error, given by its HTTP status and error code
// (the x-ms-error-code header or the code in the body), onto a sentinel
// of package storage, or nil when none fits.
func sentinel(status int, code string) error {
	switch code {
	case "ContainerNotFound":
		return storage.ErrContainerNotFound
	case "ResourceNotFound", "TableNotFound", "EntityNotFound", "BlobNotFound", "QueueNotFound", "MessageNotFound":
		return storage.ErrNotFound
	case "EntityAlreadyExists", "BlobAlreadyExists", "TableAlreadyExists", "ContainerAlreadyExists", "QueueAlreadyExists":
		return storage.ErrExists
	case "UpdateConditionNotSatisfied", "ConditionNotMet", "PopReceiptMismatch", "TargetConditionNotMet", "SourceConditionNotMet":
		return storage.ErrPrecondition
	case "RequestBodyTooLarge", "EntityTooLarge", "PropertyValueTooLarge", "MessageTooLarge", "RequestEntityTooLarge":
		return storage.ErrTooLarge
	}
	switch status {
	case http.StatusNotFound:
		return storage.ErrNotFound
	case http.StatusPreconditionFailed:
		return storage.ErrPrecondition
	case http.StatusRequestEntityTooLarge:
		return storage.ErrTooLarge
	case http.StatusBadRequest:
		return storage.ErrInvalid
	}
	return nil
}

// hasCode reports whether err is a service error response with this error code.
func hasCode(err error, code string) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.ErrorCode == code
}
