@cap:native-users
Feature: Invitations and signing up
  DataHub's native users sign up themselves, with an invitation. Someone holding the
  platform privilege MANAGE_USER_CREDENTIALS asks for the current invite token
  (getInviteToken) or makes a new one (createInviteToken) and passes it on; the new person
  posts their full name, email (which is also their username), password, title and the
  invite token as JSON to the frontend's /signUp, which makes them a user with a password
  and signs them in. One invite token signs up as many people as it is given to. A sign-up
  with an invite token no one issued, or without one, makes no user; so does a sign-up
  for a username someone already has, which leaves that user, and their password, as
  they were. No other privilege lets anyone read or make an invite token.

  DataHub keeps an invite token for each role a new person may be offered (Reader, Editor,
  Admin), asked for and made by the role's name, besides the one for no role: each is a token
  of its own, each signs people up, and making a new one for a role leaves the others as
  they were.

  Recommended beyond DataHub: a new invite token replaces the old one at once (the role's
  old one, for a role), so that an invitation that went astray can be withdrawn by making a
  new one. And a username that
  reads as someone else's (the same letters in other case, with an invisible character
  inside, or with a letter of another script that looks the same: the same skeleton by
  Unicode's confusables, UTS #39) is refused at sign-up with 400, so that no one signs up
  as "Datahub" and is taken for the root user.

  Making a new invite token cannot be undone: DataHub offers no way to bring the old one
  back, so the invitations people were given stop working. The scenarios that make one
  are tagged @irreversible; leave them out (~@irreversible) on a deployment people use.
  Asking for the invite token where there is none makes one, which stays.

  @id:invite-01 @must @smoke
  Scenario: An invite token from someone holding MANAGE_USER_CREDENTIALS lets a new person sign up
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USER_CREDENTIALS
    When Ann asks for the invite token
    Then with the invite token Carl signs up and is signed in as Carl
    And Carl signs in at the frontend's sign-in API with the password he chose
    And Carl's user has the full name, email and title he signed up with

  @id:invite-02 @must @core
  Scenario Outline: Without MANAGE_USER_CREDENTIALS, someone who may <may> cannot <act>
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    When Ann <does>
    Then Ann is rejected as unauthorized

    Examples:
      | may                       | act                   | privilege               | does                        |
      | manage users and groups   | read the invite token | MANAGE_USERS_AND_GROUPS | asks for the invite token   |
      | manage policies           | read the invite token | MANAGE_POLICIES         | asks for the invite token   |
      | manage users and groups   | make an invite token  | MANAGE_USERS_AND_GROUPS | makes a new invite token    |
      | manage every access token | make an invite token  | MANAGE_ACCESS_TOKENS    | makes a new invite token    |
      | update users and groups   | read the invite token | UPDATE_USERS_AND_GROUPS | asks for the invite token   |
      | manage every access token | read the invite token | MANAGE_ACCESS_TOKENS    | asks for the invite token   |
      | update users and groups   | make an invite token  | UPDATE_USERS_AND_GROUPS | makes a new invite token    |
      | manage policies           | make an invite token  | MANAGE_POLICIES         | makes a new invite token    |
      | manage users and groups   | read a role's invite token | MANAGE_USERS_AND_GROUPS | asks for the invite token for the Reader role |
      | manage users and groups   | make a role's invite token | MANAGE_USERS_AND_GROUPS | makes a new invite token for the Editor role  |

  @id:invite-03 @must @core
  Scenario Outline: A sign-up <flaw> makes no user
    When Carl signs up <flaw>
    Then the sign-up is refused
    And Carl's user does not exist
    And Carl cannot sign in at the frontend's sign-in API with the password he chose

    Examples:
      | flaw                                |
      | with an invite token no one issued  |
      | without an invite token             |
      | without a password                  |
      | without a full name                 |

  @id:invite-04 @must @core
  Scenario: A sign-up for a username someone already has leaves that user as they were
    Given Ann has a password
    When Carl signs up with the invite token and Ann's username
    Then the sign-up is refused
    And Ann's user is as it was, and Ann still signs in with her own password
    And no one signs in as Ann with the password Carl chose

  @id:invite-05 @must @core
  Scenario: A sign-up for the root user's name is refused and changes nothing
    When Carl signs up with the invite token and the root user's name
    Then the sign-up is refused
    And the root user is as it was
    And no one signs in as the root user with the password Carl chose

  @id:invite-06 @must @core
  Scenario: One invite token signs up more than one person
    Given the administrator has asked for the invite token
    When with the invite token Carl signs up and is signed in as Carl
    Then with the invite token Dan signs up and is signed in as Dan

  @id:invite-07 @must @core @exclusive @irreversible
  Scenario: A new invite token lets a new person sign up
    Irreversible: the invite token people were given is replaced for good.

    Given Ann holds a personal access token
    And Ann is granted MANAGE_USER_CREDENTIALS
    When Ann makes a new invite token
    Then with the invite token Carl signs up and is signed in as Carl

  @id:invite-08 @should @core @exclusive @irreversible
  Scenario: A new invite token replaces the one before
    Irreversible: the invite token people were given is replaced for good.

    Given the administrator has asked for the invite token
    And the administrator has made a new invite token
    When Carl signs up with the invite token before the new one
    Then the sign-up is refused
    And Carl's user does not exist

  @id:invite-09 @should @core
  Scenario Outline: A sign-up for a username that reads as <whose> name written <how> is refused and makes no user
    Given Ann has a password
    When Carl signs up with the invite token and <whose> name written <how>
    Then the sign-up is refused as a bad request, saying the name reads as another user's
    And no user of that name exists

    Examples:
      | whose           | how                                           |
      | Ann's           | in capitals                                   |
      | Ann's           | with a zero-width space inside                |
      | Ann's           | with a Cyrillic letter for a Latin one        |
      | the root user's | with a capital first letter                   |
      | the root user's | with a Cyrillic letter for a Latin one        |

  @id:invite-10 @must @core
  Scenario: The invite tokens of two roles and of no role are three, and each lets a new person sign up
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USER_CREDENTIALS
    When Ann asks for the invite tokens for the Reader role, for the Editor role and for no role
    Then the three invite tokens differ, and with each a new person signs up

  @id:invite-11 @must @core @exclusive @irreversible
  Scenario: A new invite token for a role leaves the invite tokens of no role and of other roles working
    Irreversible: the Editor role's invite token people were given is replaced for good.

    Given Ann holds a personal access token
    And Ann is granted MANAGE_USER_CREDENTIALS
    And the administrator has asked for the invite tokens for no role and for the Reader role
    When Ann makes a new invite token for the Editor role
    Then with the invite token for the Editor role Carl signs up and is signed in as Carl
    And with the invite token for no role Dan signs up and is signed in as Dan
    And with the invite token for the Reader role Eve signs up and is signed in as Eve

  @id:invite-12 @should @core @exclusive @irreversible
  Scenario: A new invite token for a role replaces that role's invite token before
    Irreversible: the Editor role's invite token people were given is replaced for good.

    Given the administrator has asked for the invite token for the Editor role
    And Ann holds a personal access token
    And Ann is granted MANAGE_USER_CREDENTIALS
    When Ann makes a new invite token for the Editor role
    Then with the invite token for the Editor role Dan signs up and is signed in as Dan
    But Carl signs up with the invite token for the Editor role before the new one
    And the sign-up is refused
    And Carl's user does not exist
