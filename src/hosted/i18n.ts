/** Languages of the hosted pages (DESIGN.md §8; German and French for Paygate merchants, paygate-v2-wire.md §2). */
export const LANGUAGES = ['en', 'da', 'fi', 'nb', 'sv', 'de', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

const en = {
  pageTitle: 'Payment',
  checkoutTitle: 'Checkout',
  orderLines: 'Your order',
  quantity: 'Qty',
  amount: 'Amount',
  cardFee: 'Card fee',
  total: 'Total',
  continueToPayment: 'Continue to card payment',
  cardStepTitle: 'Pay by card',
  cardNumber: 'Card number',
  expiry: 'Expiry date (MM/YY)',
  securityCode: 'Security code',
  cardholderName: 'Name on card',
  optional: 'optional',
  next: 'Continue',
  reviewTitle: 'Review and pay',
  paidTo: 'Payment to',
  card: 'Card',
  changeCard: 'Change card',
  pay: 'Pay {total}',
  cancelAndReturn: 'Cancel and return to the shop',
  feeExplanationCommercial: 'The merchant adds this fee because the card is a commercial card.',
  feeExplanationNonEea: 'The merchant adds this fee because the card was issued outside the EEA.',
  errorsTitle: 'Please correct the following:',
  invalid_number: 'Enter a valid card number.',
  unsupported_brand: 'Only Visa and Mastercard cards are accepted.',
  brand_not_accepted: 'The shop does not accept this card type. Please use another card.',
  invalid_expiry: 'Enter the expiry date as MM/YY.',
  expired: 'This card has expired.',
  invalid_security_code: 'Enter the 3 or 4 digit security code.',
  too_long: 'Enter at most 45 characters.',
  invalid_characters: 'Use letters, spaces and punctuation only.',
  brandDetected: 'Card type: {brand}',
  feePreview: 'A card fee of {fee} applies to this card. Total: {total}.',
  sessionExpired: 'This checkout has expired. Please return to the shop and start again.',
  sessionCompleted: 'This order has already been paid.',
  sessionFailed: 'Too many card attempts. This checkout has ended; please return to the shop.',
  linkInvalid: 'This payment link is invalid or has expired.',
  declinedTitle: 'The payment was declined',
  declined: 'The card was declined. You can try another card.',
  tryAgain: 'Try another card',
  backToShop: 'Back to the shop',
  processing: 'Processing your payment…',
  notFound: 'Payment not found.',
  quoteChanged: 'The amounts have changed. Please review them again.',
  saveCardTitle: 'This card will be saved',
  saveCardRecurring:
    'By paying you agree that {merchant} saves this card and charges it for the recurring payments of your subscription, without asking you each time.',
  saveCardInstallments:
    'By paying you agree that {merchant} saves this card and charges it for the remaining instalments of this purchase ({count} payments in all), without asking you each time.',
  saveCardUnscheduled:
    'By paying you agree that {merchant} saves this card for later payments: ones you start yourself, and ones {merchant} charges as agreed with you.',
  saveCardWithdraw: 'You can ask {merchant} to delete the saved card at any time.',
};

export type Messages = typeof en;

const da: Messages = {
  pageTitle: 'Betaling',
  checkoutTitle: 'Kassen',
  orderLines: 'Din ordre',
  quantity: 'Antal',
  amount: 'Beløb',
  cardFee: 'Kortgebyr',
  total: 'I alt',
  continueToPayment: 'Fortsæt til kortbetaling',
  cardStepTitle: 'Betal med kort',
  cardNumber: 'Kortnummer',
  expiry: 'Udløbsdato (MM/ÅÅ)',
  securityCode: 'Kontrolcifre',
  cardholderName: 'Navn på kortet',
  optional: 'valgfrit',
  next: 'Fortsæt',
  reviewTitle: 'Gennemse og betal',
  paidTo: 'Betaling til',
  card: 'Kort',
  changeCard: 'Skift kort',
  pay: 'Betal {total}',
  cancelAndReturn: 'Annullér og gå tilbage til butikken',
  feeExplanationCommercial: 'Forretningen opkræver dette gebyr, fordi kortet er et erhvervskort.',
  feeExplanationNonEea: 'Forretningen opkræver dette gebyr, fordi kortet er udstedt uden for EØS.',
  errorsTitle: 'Ret venligst følgende:',
  invalid_number: 'Indtast et gyldigt kortnummer.',
  unsupported_brand: 'Kun Visa- og Mastercard-kort accepteres.',
  brand_not_accepted: 'Butikken accepterer ikke denne korttype. Brug et andet kort.',
  invalid_expiry: 'Indtast udløbsdatoen som MM/ÅÅ.',
  expired: 'Kortet er udløbet.',
  invalid_security_code: 'Indtast de 3 eller 4 kontrolcifre.',
  too_long: 'Indtast højst 45 tegn.',
  invalid_characters: 'Brug kun bogstaver, mellemrum og tegnsætning.',
  brandDetected: 'Korttype: {brand}',
  feePreview: 'Der tillægges et kortgebyr på {fee} for dette kort. I alt: {total}.',
  sessionExpired: 'Betalingen er udløbet. Gå tilbage til butikken, og start forfra.',
  sessionCompleted: 'Ordren er allerede betalt.',
  sessionFailed: 'For mange forsøg med kort. Betalingen er afsluttet; gå tilbage til butikken.',
  linkInvalid: 'Betalingslinket er ugyldigt eller udløbet.',
  declinedTitle: 'Betalingen blev afvist',
  declined: 'Kortet blev afvist. Du kan prøve et andet kort.',
  tryAgain: 'Prøv et andet kort',
  backToShop: 'Tilbage til butikken',
  processing: 'Din betaling behandles…',
  notFound: 'Betalingen findes ikke.',
  quoteChanged: 'Beløbene er ændret. Gennemse dem venligst igen.',
  saveCardTitle: 'Kortet bliver gemt',
  saveCardRecurring:
    'Ved at betale accepterer du, at {merchant} gemmer kortet og trækker de faste betalinger for dit abonnement på det uden at spørge dig hver gang.',
  saveCardInstallments:
    'Ved at betale accepterer du, at {merchant} gemmer kortet og trækker de resterende rater for dette køb på det ({count} betalinger i alt) uden at spørge dig hver gang.',
  saveCardUnscheduled:
    'Ved at betale accepterer du, at {merchant} gemmer kortet til senere betalinger: dem du selv starter, og dem {merchant} trækker efter aftale med dig.',
  saveCardWithdraw: 'Du kan til enhver tid bede {merchant} om at slette det gemte kort.',
};

const fi: Messages = {
  pageTitle: 'Maksu',
  checkoutTitle: 'Kassa',
  orderLines: 'Tilauksesi',
  quantity: 'Määrä',
  amount: 'Summa',
  cardFee: 'Korttimaksu',
  total: 'Yhteensä',
  continueToPayment: 'Jatka korttimaksuun',
  cardStepTitle: 'Maksa kortilla',
  cardNumber: 'Kortin numero',
  expiry: 'Voimassaolo (KK/VV)',
  securityCode: 'Turvakoodi',
  cardholderName: 'Nimi kortissa',
  optional: 'valinnainen',
  next: 'Jatka',
  reviewTitle: 'Tarkista ja maksa',
  paidTo: 'Maksunsaaja',
  card: 'Kortti',
  changeCard: 'Vaihda korttia',
  pay: 'Maksa {total}',
  cancelAndReturn: 'Peruuta ja palaa kauppaan',
  feeExplanationCommercial: 'Kauppias perii tämän maksun, koska kortti on yrityskortti.',
  feeExplanationNonEea: 'Kauppias perii tämän maksun, koska kortti on myönnetty ETA-alueen ulkopuolella.',
  errorsTitle: 'Korjaa seuraavat:',
  invalid_number: 'Anna kelvollinen kortin numero.',
  unsupported_brand: 'Vain Visa- ja Mastercard-kortit hyväksytään.',
  brand_not_accepted: 'Kauppa ei hyväksy tätä korttityyppiä. Käytä toista korttia.',
  invalid_expiry: 'Anna voimassaolo muodossa KK/VV.',
  expired: 'Kortti on vanhentunut.',
  invalid_security_code: 'Anna 3- tai 4-numeroinen turvakoodi.',
  too_long: 'Enintään 45 merkkiä.',
  invalid_characters: 'Käytä vain kirjaimia, välilyöntejä ja välimerkkejä.',
  brandDetected: 'Korttityyppi: {brand}',
  feePreview: 'Tälle kortille lisätään korttimaksu {fee}. Yhteensä: {total}.',
  sessionExpired: 'Kassa on vanhentunut. Palaa kauppaan ja aloita alusta.',
  sessionCompleted: 'Tilaus on jo maksettu.',
  sessionFailed: 'Liian monta korttiyritystä. Maksu on päättynyt; palaa kauppaan.',
  linkInvalid: 'Maksulinkki on virheellinen tai vanhentunut.',
  declinedTitle: 'Maksu hylättiin',
  declined: 'Kortti hylättiin. Voit kokeilla toista korttia.',
  tryAgain: 'Kokeile toista korttia',
  backToShop: 'Takaisin kauppaan',
  processing: 'Maksuasi käsitellään…',
  notFound: 'Maksua ei löydy.',
  quoteChanged: 'Summat ovat muuttuneet. Tarkista ne uudelleen.',
  saveCardTitle: 'Kortti tallennetaan',
  saveCardRecurring:
    'Maksamalla hyväksyt, että {merchant} tallentaa kortin ja veloittaa siltä tilauksesi toistuvat maksut kysymättä sinulta joka kerta.',
  saveCardInstallments:
    'Maksamalla hyväksyt, että {merchant} tallentaa kortin ja veloittaa siltä tämän oston jäljellä olevat erät ({count} maksua yhteensä) kysymättä sinulta joka kerta.',
  saveCardUnscheduled:
    'Maksamalla hyväksyt, että {merchant} tallentaa kortin myöhempiä maksuja varten: niitä, jotka aloitat itse, ja niitä, jotka {merchant} veloittaa kanssasi sovitusti.',
  saveCardWithdraw: 'Voit milloin tahansa pyytää, että {merchant} poistaa tallennetun kortin.',
};

const nb: Messages = {
  pageTitle: 'Betaling',
  checkoutTitle: 'Kassen',
  orderLines: 'Din bestilling',
  quantity: 'Antall',
  amount: 'Beløp',
  cardFee: 'Kortgebyr',
  total: 'Totalt',
  continueToPayment: 'Fortsett til kortbetaling',
  cardStepTitle: 'Betal med kort',
  cardNumber: 'Kortnummer',
  expiry: 'Utløpsdato (MM/ÅÅ)',
  securityCode: 'Sikkerhetskode',
  cardholderName: 'Navn på kortet',
  optional: 'valgfritt',
  next: 'Fortsett',
  reviewTitle: 'Se over og betal',
  paidTo: 'Betaling til',
  card: 'Kort',
  changeCard: 'Bytt kort',
  pay: 'Betal {total}',
  cancelAndReturn: 'Avbryt og gå tilbake til butikken',
  feeExplanationCommercial: 'Brukerstedet legger til dette gebyret fordi kortet er et bedriftskort.',
  feeExplanationNonEea: 'Brukerstedet legger til dette gebyret fordi kortet er utstedt utenfor EØS.',
  errorsTitle: 'Rett opp følgende:',
  invalid_number: 'Skriv inn et gyldig kortnummer.',
  unsupported_brand: 'Kun Visa- og Mastercard-kort godtas.',
  brand_not_accepted: 'Butikken godtar ikke denne korttypen. Bruk et annet kort.',
  invalid_expiry: 'Skriv inn utløpsdatoen som MM/ÅÅ.',
  expired: 'Kortet er utløpt.',
  invalid_security_code: 'Skriv inn den 3- eller 4-sifrede sikkerhetskoden.',
  too_long: 'Skriv inn høyst 45 tegn.',
  invalid_characters: 'Bruk bare bokstaver, mellomrom og tegnsetting.',
  brandDetected: 'Korttype: {brand}',
  feePreview: 'Det legges til et kortgebyr på {fee} for dette kortet. Totalt: {total}.',
  sessionExpired: 'Betalingen er utløpt. Gå tilbake til butikken og start på nytt.',
  sessionCompleted: 'Bestillingen er allerede betalt.',
  sessionFailed: 'For mange forsøk med kort. Betalingen er avsluttet; gå tilbake til butikken.',
  linkInvalid: 'Betalingslenken er ugyldig eller utløpt.',
  declinedTitle: 'Betalingen ble avvist',
  declined: 'Kortet ble avvist. Du kan prøve et annet kort.',
  tryAgain: 'Prøv et annet kort',
  backToShop: 'Tilbake til butikken',
  processing: 'Betalingen din behandles…',
  notFound: 'Betalingen finnes ikke.',
  quoteChanged: 'Beløpene er endret. Se over dem på nytt.',
  saveCardTitle: 'Kortet blir lagret',
  saveCardRecurring:
    'Ved å betale godtar du at {merchant} lagrer kortet og belaster det for de faste betalingene i abonnementet ditt uten å spørre deg hver gang.',
  saveCardInstallments:
    'Ved å betale godtar du at {merchant} lagrer kortet og belaster det for de gjenstående avdragene for dette kjøpet ({count} betalinger i alt) uten å spørre deg hver gang.',
  saveCardUnscheduled:
    'Ved å betale godtar du at {merchant} lagrer kortet for senere betalinger: de du starter selv, og de {merchant} belaster etter avtale med deg.',
  saveCardWithdraw: 'Du kan når som helst be {merchant} om å slette det lagrede kortet.',
};

const sv: Messages = {
  pageTitle: 'Betalning',
  checkoutTitle: 'Kassan',
  orderLines: 'Din beställning',
  quantity: 'Antal',
  amount: 'Belopp',
  cardFee: 'Kortavgift',
  total: 'Totalt',
  continueToPayment: 'Fortsätt till kortbetalning',
  cardStepTitle: 'Betala med kort',
  cardNumber: 'Kortnummer',
  expiry: 'Giltigt till (MM/ÅÅ)',
  securityCode: 'Säkerhetskod',
  cardholderName: 'Namn på kortet',
  optional: 'valfritt',
  next: 'Fortsätt',
  reviewTitle: 'Granska och betala',
  paidTo: 'Betalning till',
  card: 'Kort',
  changeCard: 'Byt kort',
  pay: 'Betala {total}',
  cancelAndReturn: 'Avbryt och gå tillbaka till butiken',
  feeExplanationCommercial: 'Handlaren lägger till avgiften eftersom kortet är ett företagskort.',
  feeExplanationNonEea: 'Handlaren lägger till avgiften eftersom kortet är utfärdat utanför EES.',
  errorsTitle: 'Rätta följande:',
  invalid_number: 'Ange ett giltigt kortnummer.',
  unsupported_brand: 'Endast Visa- och Mastercard-kort godtas.',
  brand_not_accepted: 'Butiken godtar inte den här korttypen. Använd ett annat kort.',
  invalid_expiry: 'Ange giltighetstiden som MM/ÅÅ.',
  expired: 'Kortet har gått ut.',
  invalid_security_code: 'Ange den 3- eller 4-siffriga säkerhetskoden.',
  too_long: 'Ange högst 45 tecken.',
  invalid_characters: 'Använd bara bokstäver, mellanslag och skiljetecken.',
  brandDetected: 'Korttyp: {brand}',
  feePreview: 'En kortavgift på {fee} tillkommer för detta kort. Totalt: {total}.',
  sessionExpired: 'Betalningen har gått ut. Gå tillbaka till butiken och börja om.',
  sessionCompleted: 'Beställningen är redan betald.',
  sessionFailed: 'För många kortförsök. Betalningen har avslutats; gå tillbaka till butiken.',
  linkInvalid: 'Betalningslänken är ogiltig eller har gått ut.',
  declinedTitle: 'Betalningen nekades',
  declined: 'Kortet nekades. Du kan försöka med ett annat kort.',
  tryAgain: 'Försök med ett annat kort',
  backToShop: 'Tillbaka till butiken',
  processing: 'Din betalning behandlas…',
  notFound: 'Betalningen finns inte.',
  quoteChanged: 'Beloppen har ändrats. Granska dem igen.',
  saveCardTitle: 'Kortet sparas',
  saveCardRecurring:
    'Genom att betala godkänner du att {merchant} sparar kortet och debiterar det för de återkommande betalningarna i din prenumeration utan att fråga dig varje gång.',
  saveCardInstallments:
    'Genom att betala godkänner du att {merchant} sparar kortet och debiterar det för de återstående delbetalningarna för detta köp ({count} betalningar totalt) utan att fråga dig varje gång.',
  saveCardUnscheduled:
    'Genom att betala godkänner du att {merchant} sparar kortet för senare betalningar: sådana du själv startar och sådana som {merchant} debiterar enligt överenskommelse med dig.',
  saveCardWithdraw: 'Du kan när som helst be {merchant} att radera det sparade kortet.',
};

const de: Messages = {
  pageTitle: 'Zahlung',
  checkoutTitle: 'Kasse',
  orderLines: 'Ihre Bestellung',
  quantity: 'Menge',
  amount: 'Betrag',
  cardFee: 'Kartengebühr',
  total: 'Gesamt',
  continueToPayment: 'Weiter zur Kartenzahlung',
  cardStepTitle: 'Mit Karte bezahlen',
  cardNumber: 'Kartennummer',
  expiry: 'Gültig bis (MM/JJ)',
  securityCode: 'Prüfnummer',
  cardholderName: 'Name auf der Karte',
  optional: 'optional',
  next: 'Weiter',
  reviewTitle: 'Prüfen und bezahlen',
  paidTo: 'Zahlung an',
  card: 'Karte',
  changeCard: 'Karte ändern',
  pay: '{total} bezahlen',
  cancelAndReturn: 'Abbrechen und zurück zum Shop',
  feeExplanationCommercial: 'Der Händler erhebt diese Gebühr, weil die Karte eine Firmenkarte ist.',
  feeExplanationNonEea: 'Der Händler erhebt diese Gebühr, weil die Karte außerhalb des EWR ausgegeben wurde.',
  errorsTitle: 'Bitte korrigieren Sie Folgendes:',
  invalid_number: 'Geben Sie eine gültige Kartennummer ein.',
  unsupported_brand: 'Nur Visa- und Mastercard-Karten werden akzeptiert.',
  brand_not_accepted: 'Der Shop akzeptiert diesen Kartentyp nicht. Bitte verwenden Sie eine andere Karte.',
  invalid_expiry: 'Geben Sie das Ablaufdatum als MM/JJ ein.',
  expired: 'Diese Karte ist abgelaufen.',
  invalid_security_code: 'Geben Sie die 3- oder 4-stellige Prüfnummer ein.',
  too_long: 'Geben Sie höchstens 45 Zeichen ein.',
  invalid_characters: 'Verwenden Sie nur Buchstaben, Leerzeichen und Satzzeichen.',
  brandDetected: 'Kartentyp: {brand}',
  feePreview: 'Für diese Karte fällt eine Kartengebühr von {fee} an. Gesamt: {total}.',
  sessionExpired: 'Dieser Bezahlvorgang ist abgelaufen. Bitte kehren Sie zum Shop zurück und beginnen Sie erneut.',
  sessionCompleted: 'Diese Bestellung wurde bereits bezahlt.',
  sessionFailed: 'Zu viele Kartenversuche. Dieser Bezahlvorgang wurde beendet; bitte kehren Sie zum Shop zurück.',
  linkInvalid: 'Dieser Zahlungslink ist ungültig oder abgelaufen.',
  declinedTitle: 'Die Zahlung wurde abgelehnt',
  declined: 'Die Karte wurde abgelehnt. Sie können eine andere Karte verwenden.',
  tryAgain: 'Andere Karte verwenden',
  backToShop: 'Zurück zum Shop',
  processing: 'Ihre Zahlung wird verarbeitet …',
  notFound: 'Zahlung nicht gefunden.',
  quoteChanged: 'Die Beträge haben sich geändert. Bitte prüfen Sie sie erneut.',
  saveCardTitle: 'Diese Karte wird gespeichert',
  saveCardRecurring:
    'Mit der Zahlung stimmen Sie zu, dass {merchant} diese Karte speichert und damit die wiederkehrenden Zahlungen Ihres Abonnements belastet, ohne Sie jedes Mal zu fragen.',
  saveCardInstallments:
    'Mit der Zahlung stimmen Sie zu, dass {merchant} diese Karte speichert und damit die restlichen Raten dieses Kaufs ({count} Zahlungen insgesamt) belastet, ohne Sie jedes Mal zu fragen.',
  saveCardUnscheduled:
    'Mit der Zahlung stimmen Sie zu, dass {merchant} diese Karte für spätere Zahlungen speichert: solche, die Sie selbst auslösen, und solche, die {merchant} wie mit Ihnen vereinbart belastet.',
  saveCardWithdraw: 'Sie können {merchant} jederzeit bitten, die gespeicherte Karte zu löschen.',
};

const fr: Messages = {
  pageTitle: 'Paiement',
  checkoutTitle: 'Commande',
  orderLines: 'Votre commande',
  quantity: 'Qté',
  amount: 'Montant',
  cardFee: 'Frais de carte',
  total: 'Total',
  continueToPayment: 'Continuer vers le paiement par carte',
  cardStepTitle: 'Payer par carte',
  cardNumber: 'Numéro de carte',
  expiry: "Date d'expiration (MM/AA)",
  securityCode: 'Cryptogramme visuel',
  cardholderName: 'Nom sur la carte',
  optional: 'facultatif',
  next: 'Continuer',
  reviewTitle: 'Vérifier et payer',
  paidTo: 'Paiement à',
  card: 'Carte',
  changeCard: 'Changer de carte',
  pay: 'Payer {total}',
  cancelAndReturn: 'Annuler et retourner à la boutique',
  feeExplanationCommercial: "Le commerçant ajoute ces frais parce que la carte est une carte d'entreprise.",
  feeExplanationNonEea: "Le commerçant ajoute ces frais parce que la carte a été émise hors de l'EEE.",
  errorsTitle: 'Veuillez corriger les points suivants :',
  invalid_number: 'Saisissez un numéro de carte valide.',
  unsupported_brand: 'Seules les cartes Visa et Mastercard sont acceptées.',
  brand_not_accepted: "La boutique n'accepte pas ce type de carte. Veuillez utiliser une autre carte.",
  invalid_expiry: "Saisissez la date d'expiration au format MM/AA.",
  expired: 'Cette carte a expiré.',
  invalid_security_code: 'Saisissez le cryptogramme à 3 ou 4 chiffres.',
  too_long: 'Saisissez 45 caractères au maximum.',
  invalid_characters: 'Utilisez uniquement des lettres, des espaces et de la ponctuation.',
  brandDetected: 'Type de carte : {brand}',
  feePreview: "Des frais de carte de {fee} s'appliquent à cette carte. Total : {total}.",
  sessionExpired: 'Cette commande a expiré. Veuillez retourner à la boutique et recommencer.',
  sessionCompleted: 'Cette commande a déjà été payée.',
  sessionFailed: 'Trop de tentatives de carte. Ce paiement est terminé ; veuillez retourner à la boutique.',
  linkInvalid: 'Ce lien de paiement est invalide ou a expiré.',
  declinedTitle: 'Le paiement a été refusé',
  declined: 'La carte a été refusée. Vous pouvez essayer une autre carte.',
  tryAgain: 'Essayer une autre carte',
  backToShop: 'Retour à la boutique',
  processing: 'Votre paiement est en cours de traitement…',
  notFound: 'Paiement introuvable.',
  quoteChanged: 'Les montants ont changé. Veuillez les vérifier à nouveau.',
  saveCardTitle: 'Cette carte sera enregistrée',
  saveCardRecurring:
    'En payant, vous acceptez que {merchant} enregistre cette carte et la débite des paiements récurrents de votre abonnement, sans vous le demander à chaque fois.',
  saveCardInstallments:
    'En payant, vous acceptez que {merchant} enregistre cette carte et la débite des échéances restantes de cet achat ({count} paiements au total), sans vous le demander à chaque fois.',
  saveCardUnscheduled:
    'En payant, vous acceptez que {merchant} enregistre cette carte pour des paiements ultérieurs : ceux que vous initiez vous-même et ceux que {merchant} débite comme convenu avec vous.',
  saveCardWithdraw: 'Vous pouvez à tout moment demander à {merchant} de supprimer la carte enregistrée.',
};

export const MESSAGES: Record<Language, Messages> = { en, da, fi, nb, sv, de, fr };

/** Locale used for number formatting per language. */
export const LOCALES: Record<Language, string> = {
  en: 'en-GB',
  da: 'da-DK',
  fi: 'fi-FI',
  nb: 'nb-NO',
  sv: 'sv-SE',
  de: 'de-DE',
  fr: 'fr-FR',
};

/**
 * The supported language of one language tag: an ISO 639-1 code or BCP 47 tag in any case (`de`, `FR`, `de-DE`,
 * `fr_CH`); its primary subtag decides, `no` and `nn` read as `nb`. Undefined when Kassa does not speak it.
 */
export function supportedLanguage(tag: string | undefined): Language | undefined {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  const mapped = primary === 'no' || primary === 'nn' ? 'nb' : primary;
  return (LANGUAGES as readonly string[]).includes(mapped) ? (mapped as Language) : undefined;
}

/**
 * The page language: the payment's `language` (any ISO 639-1 code or BCP 47 tag, any case) when Kassa speaks it,
 * else the best Accept-Language match (RFC 9110 §12.5.4 q-values), else English. A `language` Kassa does not speak
 * is never an error (paygate-v2-wire.md §2).
 */
export function pickLanguage(explicit: string | undefined, acceptLanguage: string | undefined): Language {
  const chosen = supportedLanguage(explicit);
  if (chosen) return chosen;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? '1',
      );
      return { tag, q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const language = supportedLanguage(tag);
    if (language) return language;
  }
  return 'en';
}

/** A message with `{name}` placeholders filled. */
export function format(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`);
}
