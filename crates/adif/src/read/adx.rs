//! Reading ADX, ADIF's XML form: the `<HEADER>`, then each `<RECORD>` with its fields,
//! `APP_` and `USERDEF` elements included, as quick-xml's events.

use super::*;

impl<R: BufRead> Reader<R> {
    /// Reads up to `<RECORDS>`, collecting the `<HEADER>`.
    pub(super) fn adx_start(&mut self) -> Result<(), ReadError> {
        let whole = |offset: u64, message: String| ReadError {
            record: 0,
            offset,
            message,
        };
        let fail = |this: &Self, f: XmlFail| match f {
            XmlFail::Io(e) => this.header_io(e),
            XmlFail::Bad(at, m) | XmlFail::EndedRecord(at, m) => {
                whole(at, format!("not a well-formed ADX file: {m}"))
            }
        };
        loop {
            let at = self.offset();
            match self.xml_event().map_err(|f| fail(self, f))? {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("ADX") => {
                    if empty {
                        self.queued.push(Err(self.no_records()));
                        self.done = true;
                        return Ok(());
                    }
                    break;
                }
                Xml::Start { name, .. } => {
                    return Err(whole(
                        at,
                        format!("not an ADX file: its root element is <{name}>, not <ADX>"),
                    ));
                }
                Xml::Eof => {
                    return Err(whole(at, "not an ADX file: it has no <ADX> element".into()));
                }
                _ => {
                    return Err(whole(
                        at,
                        "not an ADX file: it has content before the <ADX> element".into(),
                    ));
                }
            }
        }
        loop {
            let at = self.offset();
            match self.xml_event().map_err(|f| fail(self, f))? {
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("HEADER") => {
                    if !empty {
                        self.adx_header().map_err(|f| fail(self, f))?;
                    }
                }
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("RECORDS") => {
                    if empty {
                        break;
                    }
                    return Ok(());
                }
                Xml::Start { name, empty, .. } => {
                    if !empty {
                        self.skip_element(&name).map_err(|f| fail(self, f))?;
                    }
                }
                Xml::Eof | Xml::End(_) => break,
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Text(t) => {
                    return Err(whole(
                        at,
                        format!(
                            "not a well-formed ADX file: text {:?} directly inside <ADX>",
                            preview(&t)
                        ),
                    ));
                }
                Xml::Undefined(name) => {
                    return Err(whole(
                        at,
                        format!(
                            "not a well-formed ADX file: an entity &{name}; directly inside <ADX>"
                        ),
                    ));
                }
            }
        }
        self.queued.push(Err(self.no_records()));
        self.done = true;
        Ok(())
    }

    pub(super) fn adx_header(&mut self) -> Result<(), XmlFail> {
        loop {
            let at = self.offset();
            match self.xml_event()? {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Start { name, attrs, empty } => {
                    // ADI numbers user-defined fields in the header (USERDEF1); ADX says the
                    // number in an attribute.
                    let field = if name.eq_ignore_ascii_case("USERDEF") {
                        format!("USERDEF{}", attr(&attrs, "FIELDID").unwrap_or_default())
                    } else {
                        name.clone()
                    };
                    if !empty {
                        let content = self.xml_content(&name)?.ok_or_else(|| {
                            XmlFail::Bad(at, "the file ends inside <HEADER>".into())
                        })?;
                        if self.header.fields.len() >= MAX_FIELDS {
                            return Err(XmlFail::Bad(at, "the header has too many fields".into()));
                        }
                        match content {
                            Content::Text(value) => self.header.push(&field, value),
                            Content::Undefined(entity) => {
                                self.header.problems.push(undefined(&field, &entity));
                            }
                        }
                    }
                }
                Xml::End(name) if name.eq_ignore_ascii_case("HEADER") => return Ok(()),
                Xml::End(name) => {
                    return Err(XmlFail::Bad(at, format!("</{name}> inside <HEADER>")));
                }
                Xml::Text(t) => {
                    return Err(XmlFail::Bad(
                        at,
                        format!("text {:?} directly inside <HEADER>", preview(&t)),
                    ));
                }
                Xml::Undefined(name) => {
                    return Err(XmlFail::Bad(
                        at,
                        format!("an entity &{name}; directly inside <HEADER>"),
                    ));
                }
                Xml::Eof => return Err(XmlFail::Bad(at, "the file ends inside <HEADER>".into())),
            }
        }
    }

    /// Reads one ADX record; `Ok(None)` is the end of the records.
    pub(super) fn adx_record(&mut self) -> Result<Option<Record>, Fail> {
        // Find the next <RECORD>. Malformed XML here is outside any record, so reading on
        // from it rather than from the next </RECORD> keeps the record that follows.
        loop {
            let at = self.offset();
            let event = self.xml_event().map_err(|f| match self.xml_fail(f) {
                Fail::Record { error, .. } => Fail::Record {
                    error,
                    resync: false,
                },
                fatal => fatal,
            })?;
            match event {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Text(t) => {
                    return Err(Fail::Record {
                        error: self.record_error(
                            at,
                            format!(
                                "text {:?} between records; values belong in field elements such as <CALL>K1ABC</CALL>",
                                preview(&t)
                            ),
                        ),
                        resync: false,
                    });
                }
                Xml::Undefined(name) => {
                    return Err(Fail::Record {
                        error: self.record_error(
                            at,
                            format!(
                                "an entity &{name}; between records, which ADX does not define"
                            ),
                        ),
                        resync: false,
                    });
                }
                Xml::Start { name, empty, .. } if name.eq_ignore_ascii_case("RECORD") => {
                    if !empty {
                        break;
                    }
                }
                Xml::Start { name, empty, .. } => {
                    if !empty {
                        self.skip_element(&name).map_err(|f| self.xml_fail(f))?;
                    }
                    return Err(Fail::Record {
                        error: self
                            .record_error(at, format!("<{name}> where a <RECORD> should be")),
                        resync: false,
                    });
                }
                Xml::End(name)
                    if name.eq_ignore_ascii_case("RECORDS") || name.eq_ignore_ascii_case("ADX") =>
                {
                    return Ok(None);
                }
                Xml::End(_) => {}
                Xml::Eof => return Ok(None),
            }
        }
        let mut record = Record::default();
        let mut fields = 0usize;
        loop {
            let at = self.offset();
            match self.xml_event().map_err(|f| self.xml_fail(f))? {
                Xml::Text(t) if t.trim().is_empty() => {}
                Xml::Text(t) => {
                    return Err(self.bad(
                        at,
                        format!(
                            "text {:?} directly inside <RECORD>; values belong in field elements such as <CALL>K1ABC</CALL>",
                            preview(&t)
                        ),
                    ));
                }
                Xml::Undefined(name) => {
                    return Err(self.bad(
                        at,
                        format!(
                            "an entity &{name}; directly inside <RECORD>, which ADX does not define"
                        ),
                    ));
                }
                Xml::Start { name, attrs, empty } => {
                    fields += 1;
                    if fields > MAX_FIELDS {
                        return Err(self.bad(
                            at,
                            format!("more than {MAX_FIELDS} fields; is a </RECORD> missing?"),
                        ));
                    }
                    let field = if name.eq_ignore_ascii_case("APP") {
                        match (attr(&attrs, "PROGRAMID"), attr(&attrs, "FIELDNAME")) {
                            (Some(p), Some(f)) => format!("APP_{p}_{f}"),
                            _ => {
                                return Err(self.bad(
                                    at,
                                    "<APP> needs PROGRAMID and FIELDNAME attributes, e.g. <APP PROGRAMID=\"N1MM\" FIELDNAME=\"EXCHANGE1\" TYPE=\"S\">",
                                ));
                            }
                        }
                    } else if name.eq_ignore_ascii_case("USERDEF") {
                        match attr(&attrs, "FIELDNAME") {
                            Some(f) => f.to_owned(),
                            None => {
                                return Err(self.bad(
                                    at,
                                    "<USERDEF> needs a FIELDNAME attribute, e.g. <USERDEF FIELDNAME=\"EPC\">",
                                ));
                            }
                        }
                    } else {
                        name.clone()
                    };
                    if empty {
                        continue;
                    }
                    match self.xml_content(&name) {
                        Ok(Some(Content::Text(value))) => record.push(&field, value),
                        Ok(Some(Content::Undefined(entity))) => {
                            record.problems.push(undefined(&field, &entity));
                        }
                        Ok(None) => return Err(Fail::Fatal(self.adx_truncated(at))),
                        Err(XmlFail::EndedRecord(at, m)) => {
                            // The record's end tag is read already: skipping to the next one
                            // would lose the next record.
                            return Err(Fail::Record {
                                error: self.record_error(at, m),
                                resync: false,
                            });
                        }
                        Err(f) => return Err(self.xml_fail(f)),
                    }
                }
                Xml::End(name) if name.eq_ignore_ascii_case("RECORD") => return Ok(Some(record)),
                Xml::End(name) => {
                    return Err(self.bad(
                        at,
                        format!("</{name}> inside <RECORD>, which it does not close"),
                    ));
                }
                Xml::Eof => return Err(Fail::Fatal(self.adx_truncated(at))),
            }
        }
    }

    pub(super) fn adx_truncated(&self, offset: u64) -> ReadError {
        ReadError {
            record: self.number,
            offset,
            message: format!("record {} is truncated: it has no </RECORD>", self.number),
        }
    }

    pub(super) fn xml_fail(&self, f: XmlFail) -> Fail {
        match f {
            XmlFail::Io(e) => self.io(e).into(),
            XmlFail::Bad(at, m) | XmlFail::EndedRecord(at, m) => self.bad(at, m),
        }
    }

    /// The text inside an element whose start tag was just read, up to its end tag; `None`
    /// when the file ends first.
    pub(super) fn xml_content(&mut self, name: &str) -> Result<Option<Content>, XmlFail> {
        let mut value = String::new();
        // The first entity the file does not define: the value is unusable, but the element
        // is still read to its end so that the record goes on after it.
        let mut undefined = None;
        loop {
            let at = self.offset();
            match self.xml_event()? {
                Xml::Text(t) => {
                    if value.len() + t.len() > MAX_VALUE {
                        return Err(XmlFail::Bad(at, format!("<{name}> holds more than 1 MiB")));
                    }
                    value.push_str(&t);
                }
                Xml::Undefined(entity) => {
                    undefined.get_or_insert(entity);
                }
                Xml::End(end) if end.eq_ignore_ascii_case(name) => {
                    return Ok(Some(match undefined {
                        Some(entity) => Content::Undefined(entity),
                        None => Content::Text(value),
                    }));
                }
                Xml::End(end) => {
                    let message =
                        format!("<{name}> is closed by </{end}>; write <{name}>value</{name}>");
                    return Err(if end.eq_ignore_ascii_case("RECORD") {
                        XmlFail::EndedRecord(at, message)
                    } else {
                        XmlFail::Bad(at, message)
                    });
                }
                Xml::Start { name: inner, .. } => {
                    return Err(XmlFail::Bad(
                        at,
                        format!("<{name}> holds an element <{inner}>; field values are plain text"),
                    ));
                }
                Xml::Eof => return Ok(None),
            }
        }
    }

    /// Skips the rest of an element whose start tag was just read.
    pub(super) fn skip_element(&mut self, name: &str) -> Result<(), XmlFail> {
        let mut depth = 0usize;
        loop {
            let at = self.offset();
            match self.xml_event()? {
                Xml::Start { empty: false, .. } => depth += 1,
                Xml::End(_) if depth > 0 => depth -= 1,
                Xml::End(_) => return Ok(()),
                Xml::Eof => {
                    return Err(XmlFail::Bad(at, format!("the file ends inside <{name}>")));
                }
                Xml::Start { .. } | Xml::Text(_) | Xml::Undefined(_) => {}
            }
        }
    }

    /// Skips past the `</RECORD>` of a damaged record; false at the end of the file.
    pub(super) fn skip_record(&mut self) -> io::Result<bool> {
        loop {
            let before = self.offset();
            match self.xml_event() {
                Ok(Xml::End(name)) if name.eq_ignore_ascii_case("RECORD") => return Ok(true),
                Ok(Xml::Eof) => return Ok(false),
                Ok(_) => {}
                Err(XmlFail::Io(e)) => return Err(e),
                // A parser that cannot get past an error would loop here for ever.
                Err(_) if self.offset() == before => return Ok(false),
                Err(_) => {}
            }
        }
    }

    /// The next XML event; comments, processing instructions and DOCTYPE are skipped (the
    /// entities a DOCTYPE declares are never expanded: an external one would read a file or
    /// the network), CDATA and XML's own entities are text, any other entity is
    /// [`Xml::Undefined`]. Text is kept as written, CR and CRLF included.
    pub(super) fn xml_event(&mut self) -> Result<Xml, XmlFail> {
        use quick_xml::events::Event;
        let Body::Adx(xml, buf) = &mut self.body else {
            return Ok(Xml::Eof);
        };
        loop {
            buf.clear();
            let at = xml.get_ref().offset;
            let event = match xml.read_event_into(buf) {
                Ok(event) => event,
                Err(quick_xml::Error::Io(e)) => {
                    return Err(XmlFail::Io(io::Error::new(e.kind(), e.to_string())));
                }
                Err(e) => return Err(XmlFail::Bad(at, format!("malformed XML: {e}"))),
            };
            return Ok(match event {
                Event::Start(tag) => start_tag(&tag, false, at)?,
                Event::Empty(tag) => start_tag(&tag, true, at)?,
                Event::End(tag) => Xml::End(tag.name().as_ref().trim().to_owned()),
                Event::Text(t) => Xml::Text(t.into_inner().into_owned()),
                Event::CData(t) => Xml::Text(t.into_inner().into_owned()),
                Event::GeneralRef(r) => {
                    let name = r.into_inner();
                    match entity(name.as_bytes()) {
                        Some(c) => Xml::Text(c.to_string()),
                        None => Xml::Undefined(name.into_owned()),
                    }
                }
                Event::Eof => Xml::Eof,
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => continue,
            });
        }
    }
}

/// What a field element holds.
pub(super) enum Content {
    Text(String),
    /// The name of an entity the file does not define, which stood in the value.
    Undefined(String),
}

/// The problem of a field whose value held an undefined entity: it is dropped, never kept
/// with the reference as its text.
fn undefined(field: &str, entity: &str) -> FieldProblem {
    let field = field.to_ascii_uppercase();
    FieldProblem {
        message: format!(
            "{field}: &{}; is not an entity ADX defines (only &lt; &gt; &amp; &quot; &apos; and character references such as &#233; are, and svc expands no DOCTYPE's entities); the field was dropped",
            preview(entity)
        ),
        field,
    }
}

/// A start tag as [`Xml::Start`], its attribute values entity-decoded.
fn start_tag(
    tag: &quick_xml::events::BytesStart<'_>,
    empty: bool,
    at: u64,
) -> Result<Xml, XmlFail> {
    let name = tag.name().as_ref().to_owned();
    let mut attrs = Vec::new();
    for attr in tag.attributes() {
        let attr = attr.map_err(|_| {
            XmlFail::Bad(
                at,
                format!("malformed attributes in <{name}>; write NAME=\"value\""),
            )
        })?;
        attrs.push((attr.key.as_ref().to_owned(), unescape(&attr.value)));
    }
    Ok(Xml::Start { name, attrs, empty })
}
