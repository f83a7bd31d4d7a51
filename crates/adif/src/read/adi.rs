//! Reading ADI: the header (its text and fields up to `<EOH>`), and records tag by tag, each
//! length read as bytes or as characters, whichever the file's next tag fits.

use super::*;

impl<R: BufRead> Reader<R> {
    pub(super) fn adi_start(&mut self) -> Result<(), ReadError> {
        let first = self.input().skip_blank().map_err(|e| self.header_io(e))?;
        if first == Some(b'<') {
            // No header text, but some programs still write header fields and <EOH> here:
            // read the first record now so that those fields are the header before
            // `header()` can be asked for.
            if let Some(first) = self.next_item(true) {
                self.queued.insert(0, first);
            }
            Ok(())
        } else {
            self.adi_header()
        }
    }

    /// Collects the fields of the header; its free text is skipped.
    pub(super) fn adi_header(&mut self) -> Result<(), ReadError> {
        let whole = |offset: u64, message: String| ReadError {
            record: 0,
            offset,
            message,
        };
        let no_eoh = "the header (the text before the first record) has no <EOH>; add <EOH> after the header's last field";
        loop {
            let found = self
                .input()
                .skip_until(b'<')
                .map_err(|e| self.header_io(e))?;
            if !found {
                return Err(whole(self.offset(), no_eoh.into()));
            }
            let at = self.offset();
            match self.input().adi_tag().map_err(|e| self.header_io(e))? {
                None => return Err(whole(at, no_eoh.into())),
                Some(Tag::Eoh) => return Ok(()),
                Some(Tag::Eor) => {
                    return Err(whole(
                        at,
                        format!("header: <EOR> comes before <EOH>; {no_eoh}"),
                    ));
                }
                Some(Tag::Field { name, len }) => {
                    let value = match self.input().adi_value(&name, len) {
                        Ok(Value::Read { text, problem }) => {
                            self.header.problems.extend(problem);
                            text
                        }
                        Ok(Value::Lost(problem)) => {
                            self.header.problems.push(problem);
                            continue;
                        }
                        Ok(Value::PastEnd { got }) => {
                            return Err(whole(
                                self.offset(),
                                format!(
                                    "header: field {name} has length {len} but the file ends {got} bytes into its value"
                                ),
                            ));
                        }
                        Err(e) => return Err(self.header_io(e)),
                    };
                    if self.header.fields.len() >= MAX_FIELDS {
                        return Err(whole(
                            at,
                            format!("header: more than {MAX_FIELDS} fields; {no_eoh}"),
                        ));
                    }
                    self.header.push(&name, value);
                }
                // Header text is free-form: a stray `<` or `<b>` in it is not an error.
                Some(Tag::NoLength(_) | Tag::Bad) => {}
            }
        }
    }

    /// Reads one ADI record. `Ok(None)` is the end of the file between records.
    /// `allow_eoh` lets an `<EOH>` turn the fields read so far into the header.
    pub(super) fn adi_record(&mut self, allow_eoh: bool) -> Result<Option<Record>, Fail> {
        let mut record = Record::default();
        let mut fields = 0usize;
        // The last field read, for naming where a truncated record ends.
        let mut last: Option<String> = None;
        loop {
            let next = self.input().skip_blank().map_err(|e| self.io(e))?;
            let at = self.offset();
            match next {
                None if fields == 0 => return Ok(None),
                None => {
                    return Err(Fail::Fatal(ReadError {
                        record: self.number,
                        offset: at,
                        message: match last {
                            Some(name) => format!(
                                "record {} is truncated: it has no <EOR>; the file ends after its field {name}",
                                self.number
                            ),
                            None => format!("record {} is truncated: it has no <EOR>", self.number),
                        },
                    }));
                }
                Some(b'<') => {}
                // Loggers write remarks between fields and records (LoTW: `WI // Wisconsin`);
                // a value is its length, so what follows it up to the next tag is no data.
                Some(_) => {
                    self.input().skip_until(b'<').map_err(|e| self.io(e))?;
                    continue;
                }
            }
            let tag = match self.input().adi_tag().map_err(|e| self.io(e))? {
                Some(tag) => tag,
                // Text after the last record that holds a `<` ends the file as other text does.
                None if fields == 0 => return Ok(None),
                None => {
                    return Err(Fail::Fatal(ReadError {
                        record: self.number,
                        offset: at,
                        message: format!(
                            "record {} is truncated: the file ends inside a tag",
                            self.number
                        ),
                    }));
                }
            };
            match tag {
                Tag::Eor if fields == 0 => {}
                Tag::Eor => return Ok(Some(record)),
                Tag::Eoh if allow_eoh && self.header.fields.is_empty() => {
                    self.header = std::mem::take(&mut record);
                    fields = 0;
                    last = None;
                }
                Tag::Eoh => {
                    return Err(self.bad(
                        at,
                        "<EOH> among the records; a file has one header, at its start",
                    ));
                }
                // The end-of-file marks some loggers write (`<EOF>`, LoTW's `<APP_LoTW_EOF>`)
                // close the file, not a record.
                Tag::NoLength(name) if end_of_file(&name) => {}
                // A field's name without a length: where its value ends cannot be told, so
                // the text after it is skipped as text, and the field alone is lost. It counts
                // as a field, so that a run of them is bounded like fields.
                Tag::NoLength(name) if field_name(&name) => {
                    fields += 1;
                    if fields > MAX_FIELDS {
                        return Err(self.bad(
                            at,
                            format!("more than {MAX_FIELDS} fields; is the <EOR> between two records missing?"),
                        ));
                    }
                    let mut after = Vec::new();
                    self.input()
                        .read_until(|b| b == b'<', PREVIEW, &mut after)
                        .map_err(|e| self.io(e))?;
                    let after = value_text(after);
                    let value = after.trim();
                    let example = if value.is_empty() || after.len() >= PREVIEW {
                        format!("<{name}:5>K1ABC")
                    } else {
                        format!("<{name}:{}>{value}", value.len())
                    };
                    let field = name.to_ascii_uppercase();
                    record.problems.push(FieldProblem {
                        message: format!(
                            "{field}: tag <{name}> has no length; the field was dropped (ADIF writes {example})"
                        ),
                        field,
                    });
                }
                // ADIF ignores the text between fields: a `<` that starts no tag (a `<3`, `<->`
                // or a lone `<` in a remark, as World Radio League's and RUMlog's exports
                // have) is text, and reading goes on at the next `<`.
                Tag::NoLength(_) | Tag::Bad => {}
                Tag::Field { name, len } => {
                    let eof_mark = end_of_file(&name);
                    if !eof_mark {
                        fields += 1;
                    }
                    if fields > MAX_FIELDS {
                        return Err(self.bad(
                            at,
                            format!("more than {MAX_FIELDS} fields; is the <EOR> between two records missing?"),
                        ));
                    }
                    match self.input().adi_value(&name, len).map_err(|e| self.io(e))? {
                        Value::Read { .. } if eof_mark => {}
                        Value::Read { text, problem } => {
                            record.problems.extend(problem);
                            record.push(&name, text);
                        }
                        Value::Lost(problem) => record.problems.push(problem),
                        Value::PastEnd { got } => {
                            return Err(Fail::Fatal(ReadError {
                                record: self.number,
                                offset: self.offset(),
                                message: format!(
                                    "record {} is truncated: field {name} has length {len} but the file ends {got} bytes into its value",
                                    self.number
                                ),
                            }));
                        }
                    }
                    last = Some(name);
                }
            }
        }
    }
}
