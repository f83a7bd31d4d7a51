//! Real datagrams, byte for byte as their repositories quote them (read as reference only).

/// N1MM Logger+ 1.0.11462 on Windows 11, General Logging, captured 2026-10-07: tabs, CRLF,
/// a self-closing `<SentExchange />` and a `<CabrilloString>`.
/// From sq8bwm/radiodyplom-bridge, test/n1mm-plus.test.js.
pub const N1MM_PLUS: &str = concat!(
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n",
    "<contactinfo>\r\n",
    "\t<app>N1MM</app>\r\n",
    "\t<contestname>DX</contestname>\r\n",
    "\t<dbname>N1MM DXLog.s3db</dbname>\r\n",
    "\t<contestnr>0</contestnr>\r\n",
    "\t<timestamp>2026-10-07 08:48:27</timestamp>\r\n",
    "\t<mycall>SQ8BWM</mycall>\r\n",
    "\t<band>14</band>\r\n",
    "\t<rxfreq>1420000</rxfreq>\r\n",
    "\t<txfreq>1420000</txfreq>\r\n",
    "\t<operator>SQ8BWM</operator>\r\n",
    "\t<mode>USB</mode>\r\n",
    "\t<call>SP9XYZ</call>\r\n",
    "\t<countryprefix>SP</countryprefix>\r\n",
    "\t<wpxprefix>SP9</wpxprefix>\r\n",
    "\t<stationprefix>SQ8BWM</stationprefix>\r\n",
    "\t<continent>EU</continent>\r\n",
    "\t<snt>59</snt>\r\n",
    "\t<sntnr>2</sntnr>\r\n",
    "\t<rcv>59</rcv>\r\n",
    "\t<rcvnr>0</rcvnr>\r\n",
    "\t<gridsquare></gridsquare>\r\n",
    "\t<exchange1></exchange1>\r\n",
    "\t<section></section>\r\n",
    "\t<comment></comment>\r\n",
    "\t<qth></qth>\r\n",
    "\t<name></name>\r\n",
    "\t<power></power>\r\n",
    "\t<misctext></misctext>\r\n",
    "\t<zone>15</zone>\r\n",
    "\t<prec></prec>\r\n",
    "\t<ck>0</ck>\r\n",
    "\t<ismultiplier1>0</ismultiplier1>\r\n",
    "\t<ismultiplier2>0</ismultiplier2>\r\n",
    "\t<ismultiplier3>0</ismultiplier3>\r\n",
    "\t<points>1</points>\r\n",
    "\t<radionr>1</radionr>\r\n",
    "\t<run1run2>1</run1run2>\r\n",
    "\t<RoverLocation></RoverLocation>\r\n",
    "\t<RadioInterfaced>0</RadioInterfaced>\r\n",
    "\t<NetworkedCompNr>0</NetworkedCompNr>\r\n",
    "\t<IsOriginal>True</IsOriginal>\r\n",
    "\t<NetBiosName>DESKTOP-P35FDV1</NetBiosName>\r\n",
    "\t<IsRunQSO>0</IsRunQSO>\r\n",
    "\t<StationName>DESKTOP-P35FDV1</StationName>\r\n",
    "\t<ID>65ba385c74de4adf904276960075534c</ID>\r\n",
    "\t<IsClaimedQso>1</IsClaimedQso>\r\n",
    "\t<oldtimestamp>2026-10-07 08:48:27</oldtimestamp>\r\n",
    "\t<oldcall>SP9XYZ</oldcall>\r\n",
    "\t<SentExchange />\r\n",
    "\t<CabrilloString>QSO:   14200 PH 2026-10-07 0848 SQ8BWM        59   SP9XYZ        59                                                       </CabrilloString>\r\n",
    "</contactinfo>",
);

/// N1MM Logger+'s broadcast of an FT8 contact, in a Python bridge's test: 8-space
/// indentation, LF, a comment, no power.
/// From ptsmonteiro/loghub, tests/test_n1mm.py.
pub const N1MM_FT8: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<contactinfo>
        <app>N1MM</app>
        <contestname>DX</contestname>
        <contestnr>0</contestnr>
        <timestamp>2023-06-30 18:00:30</timestamp>
        <mycall>F4JAW</mycall>
        <band>28</band>
        <rxfreq>2807535</rxfreq>
        <txfreq>2807535</txfreq>
        <operator>F4JAW</operator>
        <mode>FT8</mode>
        <call>EA5EB</call>
        <countryprefix>EA</countryprefix>
        <wpxprefix>EA5</wpxprefix>
        <stationprefix></stationprefix>
        <continent>EU</continent>
        <snt>-08</snt>
        <sntnr>0</sntnr>
        <rcv>-11</rcv>
        <rcvnr>0</rcvnr>
        <gridsquare>IM99</gridsquare>
        <exchange1></exchange1>
        <section></section>
        <comment>Balcony Outback 2000</comment>
        <qth></qth>
        <name></name>
        <power></power>
        <misctext></misctext>
        <zone>0</zone>
        <prec></prec>
        <ck>0</ck>
        <ismultiplier1>0</ismultiplier1>
        <ismultiplier2>0</ismultiplier2>
        <ismultiplier3>0</ismultiplier3>
        <points>1</points>
        <radionr>0</radionr>
        <run1run2>1</run1run2>
        <RoverLocation></RoverLocation>
        <RadioInterfaced>0</RadioInterfaced>
        <NetworkedCompNr>0</NetworkedCompNr>
        <IsOriginal>True</IsOriginal>
        <NetBiosName>8700K</NetBiosName>
        <IsRunQSO>0</IsRunQSO>
        <StationName>8700K</StationName>
        <ID>cc186cb34185419db60f4388391bf508</ID>
        <IsClaimedQso>1</IsClaimedQso>
        <oldtimestamp>2023-06-30 18:00:30</oldtimestamp>
        <oldcall>EA5EB</oldcall>
</contactinfo>"#;

/// Log4OM 2 in its "N1MM compatible" mode, captured 2026-10-07: two-space indentation,
/// CRLF, no `<operator>` and no `<ID>` at all.
/// From sq8bwm/radiodyplom-bridge, test/log4om.test.js.
pub const LOG4OM: &str = concat!(
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n",
    "<contactinfo>\r\n",
    "  <app>LOG4OM2</app>\r\n",
    "  <timestamp>2026-10-07 08:05:40</timestamp>\r\n",
    "  <mycall>SQ8BWM</mycall>\r\n",
    "  <band>14</band>\r\n",
    "  <txfreq>1407400</txfreq>\r\n",
    "  <mode>FT8</mode>\r\n",
    "  <call>SP5TEST</call>\r\n",
    "  <stationprefix>SP5</stationprefix>\r\n",
    "  <continent>EU</continent>\r\n",
    "  <snt>+00</snt>\r\n",
    "  <rcv>+00</rcv>\r\n",
    "  <gridsquare>KO02</gridsquare>\r\n",
    "  <power>100.0</power>\r\n",
    "  <zone>15</zone>\r\n",
    "</contactinfo>",
);

/// QARTest 16.9.1, captured 2026-10-05: one line, elements of its own (`logger`, `nr`,
/// `exch2`, `duplicate`), the band in metres ("160"), a lower-case `<id>`, a trailing CRLF.
/// From sq8bwm/radiodyplom-bridge, test/qartest.test.js.
pub const QARTEST: &str = concat!(
    "<?xml version=\"1.0\"?><contactinfo><logger>QARTest 16.9.1</logger>",
    "<contestname>XXXXXXXXXX</contestname><timestamp>2026-10-05 19:27:29</timestamp>",
    "<mycall>SQ8BWM</mycall><band>160</band><txfreq>180000</txfreq><operator></operator>",
    "<mode>LSB</mode><call>SN0TEST</call><countryprefix>SP</countryprefix>",
    "<wpxprefix>SN0</wpxprefix><snt>59</snt><rcv>59</rcv><nr>1</nr><exch1></exch1>",
    "<exch2>59</exch2><exch3></exch3><duplicate>False</duplicate><stationname></stationname>",
    "<points>0</points><xqso>0</xqso><id>72E032A6</id></contactinfo>\r\n",
);

/// Every real datagram above.
pub const ALL: &[&str] = &[N1MM_PLUS, N1MM_FT8, LOG4OM, QARTEST];
