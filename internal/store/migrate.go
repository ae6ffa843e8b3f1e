package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/surveys-dev/surveys/internal/storage"
)

// MoveAnswerMessage is told by a migration (package migrate) that the
// message fromID of an answers queue is now the message toID of st, the
// destination, whose blobs are already copied. The worker keeps message
// IDs in two places: an answer's blob names the message that filed it, and
// a summary names the messages it merged. A message taken by a worker
// before the copy (the server was killed, or a backup caught the worker
// between the blob and the summary) would otherwise be found filed by
// "another" message and never counted, or counted twice. So every
// reference to fromID in the answers the message carries and in their
// surveys' summaries becomes toID, byte for byte (IDs are not re-encoded).
//
// It is idempotent, and a second copy of the message (a crash between the
// enqueue and the checkpoint) is harmless: whichever copy the references
// name is counted, the other is a duplicate to the worker.
func MoveAnswerMessage(ctx context.Context, st storage.Storage, queue, fromID, toID string, data []byte) error {
	if !slices.Contains(AnswerQueues, queue) || fromID == toID {
		return nil
	}
	var m AnswerMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil // a poison message: the worker moves it aside, whatever its ID
	}
	from, _ := json.Marshal(fromID)
	to, _ := json.Marshal(toID)
	surveys := map[[2]string]bool{}
	answers, _ := m.Pending()
	for _, a := range answers {
		surveys[[2]string{a.Tenant, a.Slug}] = true
		if !ValidAnswerID(a.ID) {
			continue
		}
		err := renameIn(ctx, st, AnswersContainer(a.Tenant, a.Slug), a.ID, from, to, func(data []byte) (bool, error) {
			var prev storedAnswer
			if err := json.Unmarshal(data, &prev); err != nil {
				return false, err
			}
			return prev.Message == fromID, nil
		})
		if err != nil {
			return fmt.Errorf("store: move answer %s to message %s: %w", a.ID, toID, err)
		}
	}
	for key := range surveys {
		err := renameIn(ctx, st, SummariesContainer, summaryBlob(key[0], key[1]), from, to, func(data []byte) (bool, error) {
			var s StoredSummary
			if err := json.Unmarshal(data, &s); err != nil {
				return false, err
			}
			return slices.Contains(s.AppliedMessages, fromID), nil
		})
		if err != nil {
			return fmt.Errorf("store: move the summary of %s/%s to message %s: %w", key[0], key[1], toID, err)
		}
	}
	return nil
}

// renameIn replaces the JSON string from with to in a blob when names says
// the blob refers to from. A missing blob is left alone.
func renameIn(ctx context.Context, st storage.Storage, container, name string, from, to []byte, names func([]byte) (bool, error)) error {
	b, err := st.GetBlob(ctx, container, name)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ok, err := names(b.Data)
	if err != nil || !ok {
		return err
	}
	data := bytes.ReplaceAll(b.Data, from, to)
	_, err = st.PutBlob(ctx, container, name, data, storage.PutOptions{ContentType: b.ContentType, IfMatch: b.ETag})
	return err
}
