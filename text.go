package applypatch

import (
	"errors"

	"github.com/applypatch/applypatch/internal/lines"
)

// encodeAdd is an Add's content in the encoding the host declared for its path, if any.
func (c *change) encodeAdd() ([]byte, error) {
	content := addContent(c.Op.Lines)
	if c.codec == nil {
		return content, nil
	}
	b, err := c.codec.Encode(content)
	if err != nil {
		return nil, undecodable(c.Op.Path, err)
	}
	return b, nil
}

// encodingError is the cause of a FileUndecodable: the line and the character the codec
// found, as it words them. Hosts match the FileError's reason; the codec's own fact
// stays behind this wrapper.
type encodingError struct{ fact *lines.EncodingError }

func (e *encodingError) Error() string { return e.fact.Error() }

// undecodable words a file that cannot be decoded, or a result that cannot be encoded,
// as the public error.
func undecodable(path string, err error) *FileError {
	var fact *lines.EncodingError
	if errors.As(err, &fact) {
		err = &encodingError{fact}
	}
	return &FileError{Path: path, Reason: FileUndecodable, Err: err}
}
