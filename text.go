package applypatch

// encodeAdd is an Add's content in the encoding the host declared for its path, if any.
func (c *change) encodeAdd() ([]byte, error) {
	content := addContent(c.Op.Lines)
	if c.codec == nil {
		return content, nil
	}
	b, err := c.codec.Encode(content)
	if err != nil {
		return nil, &FileError{Path: c.Op.Path, Reason: FileUndecodable, Err: err}
	}
	return b, nil
}
