package azure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

// A failed entity group transaction is answered with 202 Accepted and a
// multipart body holding the response of the operation that failed, such as
//
//	HTTP/1.1 409 Conflict
//	...
//	{"odata.error":{"code":"EntityAlreadyExists","message":{"lang":"en-US","value":"1:The specified entity already exists..."}}}
//
// where the "1:" prefix of the message is the index of the failed operation.
// aztables returns it as an *azcore.ResponseError with that 202 status and
// no error code; parseBatchFailure recovers the inner status and code.

var (
	batchStatusLine = regexp.MustCompile(`(?m)^HTTP/1\.[01] ([1-5][0-9][0-9])`)
	batchJSON       = regexp.MustCompile(`(?s)\{.*\}`)
	batchIndex      = regexp.MustCompile(`^(\d+):`)
)

// batchFailure is the failed operation of a transaction.
type batchFailure struct {
	index int // -1 when the service did not tell
	err   *azcore.ResponseError
}

// parseBatchFailure extracts the failed operation's response from the body
// of a transaction's response error; ok is false if there is none.
func parseBatchFailure(re *azcore.ResponseError) (f batchFailure, ok bool) {
	if re.RawResponse == nil || re.StatusCode >= 300 {
		return batchFailure{}, false
	}
	body, err := runtime.Payload(re.RawResponse)
	if err != nil {
		return batchFailure{}, false
	}
	for _, m := range batchStatusLine.FindAllSubmatchIndex(body, -1) {
		status, _ := strconv.Atoi(string(body[m[2]:m[3]]))
		if status < 400 {
			continue
		}
		f := batchFailure{index: -1, err: &azcore.ResponseError{StatusCode: status, RawResponse: re.RawResponse}}
		rest := body[m[1]:]
		if next := batchStatusLine.FindIndex(rest); next != nil {
			rest = rest[:next[0]]
		}
		if j := batchJSON.Find(rest); j != nil {
			f.err.ErrorCode, f.index = odataError(j)
		}
		return f, true
	}
	return batchFailure{}, false
}

// odataError reads the code and the operation index of an OData error body.
func odataError(body []byte) (code string, index int) {
	var e struct {
		OData *struct {
			Code    string `json:"code"`
			Message struct {
				Value string `json:"value"`
			} `json:"message"`
		} `json:"odata.error"`
	}
	index = -1
	if json.Unmarshal(body, &e) != nil || e.OData == nil {
		return "", index
	}
	if m := batchIndex.FindStringSubmatch(e.OData.Message.Value); m != nil {
		index, _ = strconv.Atoi(m[1])
	}
	return e.OData.Code, index
}

// batchQuotePolicy, in the table client's pipeline, escapes the single
// quotes of the keys in the URLs of the operations of a transaction.
//
// Keys appear in those URLs as OData string literals,
// (PartitionKey='k',RowKey='k'), where a quote is written twice. aztables
// escapes them so in its other methods but not in SubmitTransaction, whose
// deletes and updates of a key with a quote then fail (or address another
// row). The SDK percent-encodes the quotes of the keys, and only those (a
// table name has none), so the policy doubles each %27 of the request lines
// of the multipart body. The entities' bodies are left as they are.
type batchQuotePolicy struct{}

var batchRequestLine = regexp.MustCompile(`(?m)^(?:PUT|PATCH|MERGE|DELETE) [^ \r\n]+ HTTP/1\.1\r?$`)

func (batchQuotePolicy) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	if raw.Method != http.MethodPost || !strings.HasSuffix(raw.URL.Path, "/$batch") || req.Body() == nil {
		return req.Next()
	}
	body, err := io.ReadAll(req.Body())
	if err != nil {
		return nil, fmt.Errorf("read transaction body: %w", err)
	}
	if bytes.Contains(body, []byte("%27")) {
		body = batchRequestLine.ReplaceAllFunc(body, func(line []byte) []byte {
			return bytes.ReplaceAll(line, []byte("%27"), []byte("%27%27"))
		})
	}
	if err := req.SetBody(streaming.NopCloser(bytes.NewReader(body)), raw.Header.Get("Content-Type")); err != nil {
		return nil, fmt.Errorf("set transaction body: %w", err)
	}
	return req.Next()
}
