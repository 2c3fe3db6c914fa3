/**
 * The simulated ACS's own texts ("Kassa Sandbox Bank") in the languages of Kassa's pages: English, Danish, Finnish,
 * Norwegian, Swedish, German and French, English otherwise. The simulator is an adapter and may not import
 * src/hosted/ (dependency rule adapters-not-http), so it keeps this small table of its own.
 */
export const ACS_LANGUAGES = ['en', 'da', 'fi', 'nb', 'sv', 'de', 'fr'] as const;
export type AcsLanguage = (typeof ACS_LANGUAGES)[number];

const en = {
  errorTitle: 'Request not accepted',
  methodDataInvalid: 'threeDSMethodData is missing or malformed.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL must be an http(s) URL.',
  creqInvalid: 'The challenge request (creq) is invalid or has expired.',
  challengeUnknown: 'This challenge is unknown or already finished.',
  collectingDevice: 'Collecting device information.',
  deviceCollected: 'Device information collected.',
  continue: 'Continue',
  pageTitle: 'Kassa Sandbox Bank: verify your purchase',
  challengeTitle: 'Verify your purchase',
  merchant: 'Merchant',
  amount: 'Amount',
  cardholder: 'Cardholder',
  otpSent: 'We sent a one-time code to your phone.',
  mandated: 'Your bank requires this check.',
  sandboxHint: 'Sandbox: the code is {otp}; any other code fails.',
  otpLabel: 'One-time code',
  submit: 'Submit',
  cancel: 'Cancel',
  returning: 'Returning to the merchant.',
};

export type AcsMessages = typeof en;

const da: AcsMessages = {
  errorTitle: 'Anmodningen blev ikke accepteret',
  methodDataInvalid: 'threeDSMethodData mangler eller er ugyldig.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL skal være en http(s)-adresse.',
  creqInvalid: 'Godkendelsesanmodningen (creq) er ugyldig eller udløbet.',
  challengeUnknown: 'Denne godkendelse er ukendt eller allerede afsluttet.',
  collectingDevice: 'Enhedsoplysninger indsamles.',
  deviceCollected: 'Enhedsoplysningerne er indsamlet.',
  continue: 'Fortsæt',
  pageTitle: 'Kassa Sandbox Bank: bekræft dit køb',
  challengeTitle: 'Bekræft dit køb',
  merchant: 'Forretning',
  amount: 'Beløb',
  cardholder: 'Kortholder',
  otpSent: 'Vi har sendt en engangskode til din telefon.',
  mandated: 'Din bank kræver denne kontrol.',
  sandboxHint: 'Sandkasse: koden er {otp}; enhver anden kode afvises.',
  otpLabel: 'Engangskode',
  submit: 'Send',
  cancel: 'Annuller',
  returning: 'Du sendes tilbage til forretningen.',
};

const fi: AcsMessages = {
  errorTitle: 'Pyyntöä ei hyväksytty',
  methodDataInvalid: 'threeDSMethodData puuttuu tai on virheellinen.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL-osoitteen on oltava http(s)-osoite.',
  creqInvalid: 'Vahvistuspyyntö (creq) on virheellinen tai vanhentunut.',
  challengeUnknown: 'Tätä vahvistusta ei tunneta tai se on jo päättynyt.',
  collectingDevice: 'Laitetietoja kerätään.',
  deviceCollected: 'Laitetiedot on kerätty.',
  continue: 'Jatka',
  pageTitle: 'Kassa Sandbox Bank: vahvista ostoksesi',
  challengeTitle: 'Vahvista ostoksesi',
  merchant: 'Kauppias',
  amount: 'Summa',
  cardholder: 'Kortinhaltija',
  otpSent: 'Lähetimme kertakäyttöisen koodin puhelimeesi.',
  mandated: 'Pankkisi edellyttää tätä tarkistusta.',
  sandboxHint: 'Testiympäristö: koodi on {otp}; muut koodit hylätään.',
  otpLabel: 'Kertakäyttökoodi',
  submit: 'Lähetä',
  cancel: 'Peruuta',
  returning: 'Palataan kauppiaalle.',
};

const nb: AcsMessages = {
  errorTitle: 'Forespørselen ble ikke godtatt',
  methodDataInvalid: 'threeDSMethodData mangler eller er ugyldig.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL må være en http(s)-adresse.',
  creqInvalid: 'Bekreftelsesforespørselen (creq) er ugyldig eller utløpt.',
  challengeUnknown: 'Denne bekreftelsen er ukjent eller allerede avsluttet.',
  collectingDevice: 'Enhetsinformasjon samles inn.',
  deviceCollected: 'Enhetsinformasjonen er samlet inn.',
  continue: 'Fortsett',
  pageTitle: 'Kassa Sandbox Bank: bekreft kjøpet ditt',
  challengeTitle: 'Bekreft kjøpet ditt',
  merchant: 'Brukersted',
  amount: 'Beløp',
  cardholder: 'Kortinnehaver',
  otpSent: 'Vi har sendt en engangskode til telefonen din.',
  mandated: 'Banken din krever denne kontrollen.',
  sandboxHint: 'Sandkasse: koden er {otp}; alle andre koder avvises.',
  otpLabel: 'Engangskode',
  submit: 'Send',
  cancel: 'Avbryt',
  returning: 'Du sendes tilbake til brukerstedet.',
};

const sv: AcsMessages = {
  errorTitle: 'Begäran godtogs inte',
  methodDataInvalid: 'threeDSMethodData saknas eller är felaktig.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL måste vara en http(s)-adress.',
  creqInvalid: 'Verifieringsbegäran (creq) är ogiltig eller har gått ut.',
  challengeUnknown: 'Den här verifieringen är okänd eller redan avslutad.',
  collectingDevice: 'Enhetsinformation samlas in.',
  deviceCollected: 'Enhetsinformationen är insamlad.',
  continue: 'Fortsätt',
  pageTitle: 'Kassa Sandbox Bank: bekräfta ditt köp',
  challengeTitle: 'Bekräfta ditt köp',
  merchant: 'Handlare',
  amount: 'Belopp',
  cardholder: 'Kortinnehavare',
  otpSent: 'Vi har skickat en engångskod till din telefon.',
  mandated: 'Din bank kräver den här kontrollen.',
  sandboxHint: 'Sandlåda: koden är {otp}; alla andra koder avvisas.',
  otpLabel: 'Engångskod',
  submit: 'Skicka',
  cancel: 'Avbryt',
  returning: 'Du skickas tillbaka till handlaren.',
};

const de: AcsMessages = {
  errorTitle: 'Anfrage nicht angenommen',
  methodDataInvalid: 'threeDSMethodData fehlt oder ist fehlerhaft.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL muss eine http(s)-Adresse sein.',
  creqInvalid: 'Die Bestätigungsanfrage (creq) ist ungültig oder abgelaufen.',
  challengeUnknown: 'Diese Bestätigung ist unbekannt oder bereits abgeschlossen.',
  collectingDevice: 'Geräteinformationen werden erfasst.',
  deviceCollected: 'Geräteinformationen erfasst.',
  continue: 'Weiter',
  pageTitle: 'Kassa Sandbox Bank: Bestätigen Sie Ihren Einkauf',
  challengeTitle: 'Bestätigen Sie Ihren Einkauf',
  merchant: 'Händler',
  amount: 'Betrag',
  cardholder: 'Karteninhaber',
  otpSent: 'Wir haben einen Einmalcode an Ihr Telefon gesendet.',
  mandated: 'Ihre Bank verlangt diese Prüfung.',
  sandboxHint: 'Sandbox: Der Code lautet {otp}; jeder andere Code schlägt fehl.',
  otpLabel: 'Einmalcode',
  submit: 'Absenden',
  cancel: 'Abbrechen',
  returning: 'Sie werden zum Händler zurückgeleitet.',
};

const fr: AcsMessages = {
  errorTitle: 'Requête refusée',
  methodDataInvalid: 'threeDSMethodData est absent ou mal formé.',
  notificationUrlInvalid: 'threeDSMethodNotificationURL doit être une adresse http(s).',
  creqInvalid: "La demande d'authentification (creq) n'est pas valide ou a expiré.",
  challengeUnknown: 'Cette authentification est inconnue ou déjà terminée.',
  collectingDevice: "Collecte des informations de l'appareil.",
  deviceCollected: "Informations de l'appareil collectées.",
  continue: 'Continuer',
  pageTitle: 'Kassa Sandbox Bank : confirmez votre achat',
  challengeTitle: 'Confirmez votre achat',
  merchant: 'Commerçant',
  amount: 'Montant',
  cardholder: 'Titulaire de la carte',
  otpSent: 'Nous avons envoyé un code à usage unique sur votre téléphone.',
  mandated: 'Votre banque exige cette vérification.',
  sandboxHint: 'Bac à sable : le code est {otp} ; tout autre code échoue.',
  otpLabel: 'Code à usage unique',
  submit: 'Valider',
  cancel: 'Annuler',
  returning: 'Retour chez le commerçant.',
};

export const ACS_MESSAGES: Record<AcsLanguage, AcsMessages> = { en, da, fi, nb, sv, de, fr };

/** The ACS language of one BCP 47 tag or ISO 639-1 code (any case; `no`/`nn` read as `nb`), or undefined. */
function acsLanguageOf(tag: string | undefined): AcsLanguage | undefined {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  const mapped = primary === 'no' || primary === 'nn' ? 'nb' : primary;
  return (ACS_LANGUAGES as readonly string[]).includes(mapped) ? (mapped as AcsLanguage) : undefined;
}

/**
 * The language of an ACS page: the AReq's browserLanguage (EMVCo: the cardholder's browser language, BCP 47) when
 * the ACS speaks it, else the first Accept-Language entry it speaks (entries with q=0 skipped; order as sent), else
 * English.
 */
export function acsLanguage(browserLanguage: string | undefined, acceptLanguage: string | undefined): AcsLanguage {
  const fromAReq = acsLanguageOf(browserLanguage);
  if (fromAReq) return fromAReq;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const [tag, ...params] = part.split(';');
    if (params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))) continue;
    const language = acsLanguageOf(tag);
    if (language) return language;
  }
  return 'en';
}

/** A message with `{name}` placeholders filled. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`);
}
